import { expect } from 'chai'
import { createHash } from 'node:crypto'
import { cryptoTokenSecrets, secretPrefix } from '../../../adapters/system/crypto-token-secrets'

describe('cryptoTokenSecrets', () => {
  it('generates sb_ + base64url of 32 random bytes', () => {
    const secret = cryptoTokenSecrets.generate()
    expect(secret.startsWith(secretPrefix)).to.equal(true)
    const body = secret.slice(secretPrefix.length)
    expect(body).to.match(/^[A-Za-z0-9_-]{43}$/)
    expect(Buffer.from(body, 'base64url')).to.have.length(32)
  })

  it('never generates the same secret twice', () => {
    const secrets = new Set(Array.from({ length: 5000 }, () => cryptoTokenSecrets.generate()))
    expect(secrets.size).to.equal(5000)
  })

  it('hashes with SHA-256 to 64 hex characters, the same every time', () => {
    const secret = cryptoTokenSecrets.generate()
    const hash = cryptoTokenSecrets.hash(secret)
    expect(hash).to.match(/^[0-9a-f]{64}$/)
    expect(hash).to.equal(createHash('sha256').update(secret).digest('hex'))
    expect(cryptoTokenSecrets.hash(secret)).to.equal(hash)
    expect(hash).not.to.contain(secret)
  })

  it('hashes different secrets differently', () => {
    const secret = cryptoTokenSecrets.generate()
    expect(cryptoTokenSecrets.hash(cryptoTokenSecrets.generate())).not.to.equal(cryptoTokenSecrets.hash(secret))
    expect(cryptoTokenSecrets.hash(`${secret}x`)).not.to.equal(cryptoTokenSecrets.hash(secret))
  })
})
