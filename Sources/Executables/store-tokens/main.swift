import PayPulseApp

FunctionMain.main(.storeTokens)
