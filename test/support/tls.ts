/**
 * A self-signed certificate for `hooks.example.test` (and no other name), valid from 2000 to 2126, with its key: the
 * https stand-in of the outbound guard's tests, trusted there through the guard's `ca`. Test-only: it guards nothing.
 */

/** The certificate (PEM), also its own certificate authority. */
export const certificate = `-----BEGIN CERTIFICATE-----
MIIBojCCAUegAwIBAgIBATAKBggqhkjOPQQDAjAdMRswGQYDVQQDDBJob29rcy5l
eGFtcGxlLnRlc3QwIBcNMDAwMTAxMDAwMDAwWhgPMjEyNjAxMDEwMDAwMDBaMB0x
GzAZBgNVBAMMEmhvb2tzLmV4YW1wbGUudGVzdDBZMBMGByqGSM49AgEGCCqGSM49
AwEHA0IABFjl4F+KeaGogiExJlyUwiKhuReALMcVj+Bn/3GkuDTaYvEF0jIgW/GK
tWSQA1JFPy9/Bu6gHPGPhE02spi0oVCjdjB0MA8GA1UdEwEB/wQFMAMBAf8wDgYD
VR0PAQH/BAQDAgKEMBMGA1UdJQQMMAoGCCsGAQUFBwMBMB0GA1UdEQQWMBSCEmhv
b2tzLmV4YW1wbGUudGVzdDAdBgNVHQ4EFgQU9UHGxIB1vltmjfJX2jJs7rRrSSUw
CgYIKoZIzj0EAwIDSQAwRgIhAJ+IlH46L5TULmlcxZp8AQ9x/ppUcqyX9m2lijk2
nEj9AiEAnoHUJ8kB+qSHvPf1dRaUmoicsPMG3h7TfoAwh3vUvhk=
-----END CERTIFICATE-----
`

/** Its private key (PEM). */
export const privateKey = `-----BEGIN PRIVATE KEY-----
MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgf1a73P27sk7IWwep
jTKr0vbjzmnw95vNHUOm/AYIsbShRANCAARY5eBfinmhqIIhMSZclMIiobkXgCzH
FY/gZ/9xpLg02mLxBdIyIFvxirVkkANSRT8vfwbuoBzxj4RNNrKYtKFQ
-----END PRIVATE KEY-----
`
