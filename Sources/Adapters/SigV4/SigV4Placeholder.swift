enum SigV4Placeholder {}
