import { expect } from 'chai'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { environmentVariables } from '../../../config/env'

// dist/tests/unit/config -> the repository root
const readme = readFileSync(join(__dirname, '..', '..', '..', '..', 'README.md'), 'utf8')

describe('README', () => {
  it('starts with the three commands a new user needs, in order', () => {
    const firstBlock = /```sh\n([\s\S]*?)```/.exec(readme)?.[1] ?? ''
    const commands = firstBlock.split('\n').map((line) => line.split('#')[0].trim()).filter((line) => line !== '')
    expect(commands).to.deep.equal(['npm ci', 'npm start', 'npm test'])
  })

  it('documents every environment variable with its default and meaning, and no other', () => {
    const rows = [...readme.matchAll(/^\| `([A-Z_]+)` \| `([^`]*)` \| (.*) \|$/gm)].map((m) => ({ name: m[1], default: m[2], meaning: m[3] }))
    expect(rows).to.deep.equal(environmentVariables.map((v) => ({ name: v.name, default: v.default, meaning: v.meaning })))
  })
})
