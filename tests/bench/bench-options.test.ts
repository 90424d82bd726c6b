import { expect } from 'chai'
import { mkdtempSync, readdirSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import * as path from 'node:path'
import { runBench } from '../../bench/bench'
import { killLivingChildren } from '../../bench/child'

describe('bench options', function () {
  this.timeout(60_000)
  let dir: string

  beforeEach(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'switchboard-bench-options-'))
  })

  afterEach(() => {
    killLivingChildren()
    rmSync(dir, { recursive: true, force: true })
  })

  it('refuses an operation key it does not know, naming it, and writes no results', async () => {
    let refused: unknown
    await runBench({
      connections: 1,
      seconds: 1,
      baselineSeconds: 1,
      warmupSeconds: 0,
      rounds: 1,
      size: { agents: 1, actions: 1, linksPerAgent: 1, webhooksPerAgent: 0, prospects: 1, hotConversations: 1, conversations: 1, transcriptLines: 1 },
      scale: null,
      only: ['get-action', 'get-actoin'],
      outDir: dir,
      log: () => undefined,
    }).catch((error: unknown) => (refused = error))
    expect(String(refused)).to.contain('"get-actoin"')
    expect(String(refused)).to.contain('get-action,')
    expect(readdirSync(dir)).to.deep.equal([])
  })
})
