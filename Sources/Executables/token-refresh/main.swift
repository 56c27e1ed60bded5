import PayPulseApp

#if canImport(Glibc)
import Glibc
#endif

exit(await FunctionMain.run(.tokenRefresh))
