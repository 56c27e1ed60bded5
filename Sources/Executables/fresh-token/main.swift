import PayPulseApp

FunctionMain.main(.freshToken)
