import PayPulseApp

FunctionMain.main(.tokenRefresh)
