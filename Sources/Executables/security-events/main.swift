import PayPulseApp

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

exit(await FunctionMain.run(.securityEvents))
