// The fake Google and the scripted loopback servers moved to their own module so the
// developer CLI can run them too; every test that imports the test support keeps them.
@_exported import PayPulseFakeGoogle
