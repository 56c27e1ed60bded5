import PayPulseApp

FunctionMain.main(.userProfile)
