import Foundation

/// A throwaway 2048-bit RSA key pair (generated with openssl for these tests only), used to
/// forge RS256 tokens and to try the public key as an HMAC secret (HS/RS confusion).
enum RSAFixture {
    static let privateKeyPEM = """
-----BEGIN PRIVATE KEY-----
MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQDBFarHxokBUtLl
kKNcjZ+pACedwJgslOny0ZMB4DK/qZGt4Y6I7MPmETWUS09Aq35TT/5Jj2JtgHa8
9jN8Y/FWVhSJVWYUFpRrEvSp/NeIA/ihEacWPkV11UcNy9TGFaBID+Q071J6+VO4
32vyPB0imr1S5PbYyO8d84/AkSVh9Xfc4yrbZq483lPb1czorJznzNvrCI705Eny
j805DY9VjhLMQxjkm+AB94fDpDJctbnVUYQXLVg+UhsLPWBOgM94QBb7SF3vOngf
layAZxcp7TkwtUD9UDdsLMu7kPY5Zfp42UJEe3fHQc6MconSkMSww7r33WHbvaM2
KKsRWVXBAgMBAAECggEAAhQC/201PIrJCxA+V+DM2P9vzbh80s8EARltGwIwHaS8
NQpGU9YzihKBmH/igZxO6uPjpWRKD4poTMKcHYDAYFjjFfLRu1HeZVQiBsHaSoQb
bRVg7mH7cqgZ4I3C86JYNCpanxC72ye7lVPvSB9KQ3z1oHKnLwBjpXeBgrW1OKuM
RkX9LoGM7TFDVw6iCezwziJDOjFiQKXmLEjl60Wf3SaHQ6E2xCLo26ojwzQT67lx
2ogc68gP2N4oMda3qah3Om18c0hQcDAiY3RSfiCnAs9UCGyxzsN4FqAzTgXdWbXm
KLGYw0xHgkr49Y07iwwJYHYgx9d+To7w2nncYeKsAQKBgQDhk3aRKA+DsM0fdur4
QaT5V3codm4a6stCGxLmXcLOCxZI792fuGf5LHu/ja+Tp6FTHqGjPFqi3UfYSrmp
OB5VuL2XKEiwsby2ZId3UU5R4CzluPUmlc30KAoUlhmzP1rfxXX+q7adyR8zs3gn
e01j72BBlAb/XozFNAqOk3dygQKBgQDbIFz3J/uYyffg8NXtckbXNWWVh7UaVuSE
NrsGR2IdVE5a4kGsCW8bNGPPWEPIpuIyu5lCBYTEvP7OTJdQD6tUROYH9ezcSKuY
DXRM4hp9WfW7w1aWoaiDvfl1JgocnX8+O+RM71tyH7ZzpILD3ez7xYPeS3ebUFMm
iIEms03DQQKBgQDBmMOrtMwL49NH69GhmwUxkeWMbof0xgoIBCBmYZXtLArGMkbs
62EgsxLJxZooiTellKZ46DWJjYw5j3hkSOuP+muMrWAldYVWrFSvDLLBBjrCNckA
gpUttKdiH6iS9A7T+i5YkZq7NH946dB3YhV7bVgZMCgJR2ZdYVqmHt3nAQKBgDVE
/NSox6UxFC1+3sLGkSooNPXQ89nfXdY2Z+jy2Ys/v3ygnE5yTKxUZB832eKhj0O+
D1fZd5lMSLVmMTKpXIEz7qfoxRgYIn7oZml6Xe4zPGXU6uvbiNfeCxLLmJG0SAad
ELcTSSvJQdWDHLb48G+UaKZVulHriQtJC/yYgkMBAoGACCe1wuC3vhvyFksbBTFQ
KLryT+ihU5h/xn2Nut9vdJrtMpXF0ykd5vjPfSsTPoW1NgUMs2p7O6WtbTKq+ITg
uyid4q8W/0Tig0OWe0muALstcbsbLFC/nj6AU0+hVgeraTJ4c3l9difZwco4Hquu
m54JHj/STn4UAO/1xuMOFco=
-----END PRIVATE KEY-----
"""

    /// The public half, in `Tests/Fixtures/rsa-public-key.pem`, which `scripts/make-events.py`
    /// reads too (for the HS/RS confusion replay case).
    static let publicKeyPEM: String = {
        let file = URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Fixtures/rsa-public-key.pem")
        guard let pem = try? String(contentsOf: file, encoding: .utf8) else { preconditionFailure("cannot read \(file.path)") }
        return pem
    }()
}
