import PayPulseApp

FunctionMain.main(.securityEvents)
