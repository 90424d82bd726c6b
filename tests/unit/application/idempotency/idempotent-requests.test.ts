import { expect } from 'chai'
import * as E from 'fp-ts/Either'
import * as TE from 'fp-ts/TaskEither'
import { idempotencyKeyLifetimeMs, idempotencyLockMs, keepIdempotentAnswer } from '../../../../application/idempotency/idempotent-requests'
import { StoredResponse } from '../../../../application/ports/idempotency-repository'
import { Actor } from '../../../../domain/shared/audit'
import { storeUnavailable } from '../../../../domain/shared/errors'
import { runLeft, runRight } from '../helpers'
import { actionBody, agentBody, conversationBody, newWorld, withTwoOrganisations, World } from '../world'

const answer = (body: string): StoredResponse => ({ status: 201, headers: { 'Content-Type': 'application/json; charset=utf-8' }, body })

describe('idempotent requests', () => {
  let world: World
  let alice: Actor
  let bob: Actor
  beforeEach(async () => {
    world = newWorld()
    ;({ alice, bob } = await withTwoOrganisations(world))
  })

  const claim = (actor: Actor, key = 'key-1', fingerprint = 'request-1') => world.core.claimIdempotencyKey(actor, key, fingerprint)

  /** Claims the key and creates an action keeping `body` as its answer, as the HTTP adapter does. */
  const createOnce = async (actor: Actor, body: string, key = 'key-1', fingerprint = 'request-1') => {
    const decision = await runRight(claim(actor, key, fingerprint))
    if (decision._tag !== 'Run') throw new Error(`expected to run, got ${decision._tag}`)
    const action = await runRight(world.core.createAction(actor, actionBody(), (repos) => keepIdempotentAnswer(decision.claim, answer(body))(repos)))
    return { claim: decision.claim, action }
  }

  const actionCount = async (actor: Actor) => (await runRight(world.core.listActions(actor, {}))).items.length

  it('runs the first request, then replays its kept answer for the same request', async () => {
    await createOnce(alice, '{"first":true}')
    expect(await runRight(claim(alice))).to.deep.equal({ _tag: 'Replay', response: answer('{"first":true}') })
    expect(await actionCount(alice)).to.equal(1)
  })

  it('refuses the key for a different request, answered or still running', async () => {
    await createOnce(alice, '{}')
    expect(await runLeft(claim(alice, 'key-1', 'request-2'))).to.deep.equal({ _tag: 'IdempotencyKeyReused' })
    await runRight(claim(alice, 'key-2'))
    expect(await runLeft(claim(alice, 'key-2', 'request-2'))).to.deep.equal({ _tag: 'IdempotencyKeyReused' })
  })

  it('says in flight while the first request runs, and lets a retry run once it was released', async () => {
    const first = await runRight(claim(alice))
    expect(await runLeft(claim(alice))).to.deep.equal({ _tag: 'IdempotencyInFlight' })
    if (first._tag !== 'Run') throw new Error('expected to run')
    await runRight(world.core.releaseIdempotencyKey(first.claim))
    expect((await runRight(claim(alice)))._tag).to.equal('Run')
  })

  it('names the claim a failed claim may have written, and letting that go frees the key', async () => {
    // The insert commits and its answer is lost (the connection drops before the read after it).
    let lose = true
    const lossy = newWorld({
      repositories: (repositories) => ({
        ...repositories,
        idempotencyKeys: {
          ...repositories.idempotencyKeys,
          claim: (candidate) => () =>
            repositories.idempotencyKeys
              .claim(candidate)()
              .then((outcome) => (lose ? ((lose = false), E.left(storeUnavailable('connection lost after the insert'))) : outcome)),
        },
      }),
    })
    const { alice: caller } = await withTwoOrganisations(lossy)
    const failed = await runLeft(lossy.core.claimIdempotencyKey(caller, 'key-1', 'request-1'))
    expect(failed._tag).to.equal('StoreUnavailable')
    if (!('mayHold' in failed)) throw new Error('the failure does not name the claim it may have written')
    // The key is held by that claim, though no request runs with it.
    expect(await runLeft(lossy.core.claimIdempotencyKey(caller, 'key-1', 'request-1'))).to.deep.equal({ _tag: 'IdempotencyInFlight' })
    await runRight(lossy.core.releaseIdempotencyKey(failed.mayHold))
    expect((await runRight(lossy.core.claimIdempotencyKey(caller, 'key-1', 'request-1')))._tag).to.equal('Run')
  })

  it('refuses a key or fingerprint the stores cannot keep alike, before anything is stored', async () => {
    // An embedding program calls the use case directly: the rule the HTTP adapter checks is the use case's own.
    const keyMessage = 'must be 1 to 255 printable ASCII characters'
    const fingerprintMessage = 'must be 1 to 64 printable ASCII characters, such as a SHA-256 digest in hex'
    const cases: ReadonlyArray<[unknown, unknown, ReadonlyArray<{ path: string; message: string }>]> = [
      ['', 'request-1', [{ path: '/key', message: keyMessage }]],
      ['k'.repeat(256), 'request-1', [{ path: '/key', message: keyMessage }]],
      ['caf\u00e9', 'request-1', [{ path: '/key', message: keyMessage }]],
      ['line\nbreak', 'request-1', [{ path: '/key', message: keyMessage }]],
      [undefined, 'request-1', [{ path: '/key', message: keyMessage }]],
      ['key-1', 'f'.repeat(65), [{ path: '/fingerprint', message: fingerprintMessage }]],
      ['key-1', '', [{ path: '/fingerprint', message: fingerprintMessage }]],
      ['key-1', 'caf\u00e9', [{ path: '/fingerprint', message: fingerprintMessage }]],
      [42, null, [{ path: '/key', message: keyMessage }, { path: '/fingerprint', message: fingerprintMessage }]],
    ]
    for (const [key, fingerprint, violations] of cases) {
      expect(await runLeft(world.core.claimIdempotencyKey(alice, key as string, fingerprint as string))).to.deep.equal({ _tag: 'ValidationFailed', violations })
    }
    expect((await runRight(claim(alice, 'k'.repeat(255), 'f'.repeat(64))))._tag).to.equal('Run')
    expect((await runRight(claim(alice, ' ~ printable ', 'request-1')))._tag).to.equal('Run')
  })

  it('keeps keys apart per organisation', async () => {
    await createOnce(alice, '{"of":"alice"}')
    expect((await runRight(claim(bob)))._tag).to.equal('Run')
  })

  it('takes over a key whose request died once its lock has run out', async () => {
    await runRight(claim(alice))
    world.clock.advance(idempotencyLockMs - 1)
    expect(await runLeft(claim(alice))).to.deep.equal({ _tag: 'IdempotencyInFlight' })
    world.clock.advance(1)
    expect((await runRight(claim(alice)))._tag).to.equal('Run')
  })

  it('rolls the write back when the request lost its key meanwhile, so it is never done twice', async () => {
    const first = await runRight(claim(alice))
    if (first._tag !== 'Run') throw new Error('expected to run')
    world.clock.advance(idempotencyLockMs)
    const second = await runRight(claim(alice))
    expect(second._tag).to.equal('Run')
    const late = await runLeft(world.core.createAction(alice, actionBody(), (repos) => keepIdempotentAnswer(first.claim, answer('{"late":true}'))(repos)))
    expect(late).to.deep.equal({ _tag: 'IdempotencyInFlight' })
    expect(await actionCount(alice)).to.equal(0)
  })

  it('forgets an answer after 24 hours: the key runs again, with any request', async () => {
    await createOnce(alice, '{}')
    world.clock.advance(idempotencyKeyLifetimeMs - 1)
    expect((await runRight(claim(alice)))._tag).to.equal('Replay')
    world.clock.advance(1)
    expect((await runRight(claim(alice, 'key-1', 'another request')))._tag).to.equal('Run')
  })

  it('purges expired keys and only those', async () => {
    await createOnce(alice, '{}', 'old')
    world.clock.advance(idempotencyKeyLifetimeMs / 2)
    await createOnce(alice, '{}', 'young')
    world.clock.advance(idempotencyKeyLifetimeMs / 2)
    expect(await runRight(world.core.purgeExpiredIdempotencyKeys(1))).to.equal(1)
    expect((await runRight(claim(alice, 'young')))._tag).to.equal('Replay')
    expect((await runRight(claim(alice, 'old', 'new request')))._tag).to.equal('Run')
  })

  it('purges a backlog larger than one batch in one call', async () => {
    for (let i = 0; i < 7; i++) await createOnce(alice, '{}', `key-${i}`)
    world.clock.advance(idempotencyKeyLifetimeMs)
    expect(await runRight(world.core.purgeExpiredIdempotencyKeys(3))).to.equal(7)
    expect(await runRight(world.core.purgeExpiredIdempotencyKeys(3))).to.equal(0)
  })

  it('commits the conversation and its prospect with the kept answer, or neither', async () => {
    const agent = await runRight(world.core.createAiAgent(alice, agentBody()))
    const decision = await runRight(claim(alice))
    if (decision._tag !== 'Run') throw new Error('expected to run')
    world.clock.advance(idempotencyLockMs)
    await runRight(claim(alice)) // another request takes the key over
    const body = conversationBody(agent.id)
    const lost = await runLeft(world.core.createConversation(alice, body, (repos) => keepIdempotentAnswer(decision.claim, answer('{}'))(repos)))
    expect(lost).to.deep.equal({ _tag: 'IdempotencyInFlight' })
    expect((await runRight(world.core.listConversations(alice, {}))).items).to.have.lengthOf(0)
    expect((await runRight(world.core.listProspects(alice, {}))).items).to.have.lengthOf(0)
    const kept = await runRight(world.core.createConversation(alice, body, () => TE.right(undefined)))
    expect(kept.aiAgentId).to.equal(agent.id)
  })
})
