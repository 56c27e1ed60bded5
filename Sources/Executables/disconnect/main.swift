import PayPulseApp

FunctionMain.main(.disconnect)
