import { expect } from 'chai'
import * as E from 'fp-ts/Either'
import { pipe } from 'fp-ts/function'
import * as TE from 'fp-ts/TaskEither'
import { Repositories } from '../../application/ports/unit-of-work'
import { aConversation, anAction, anAiAgent, anOrganisation, aProspect, aToken, at, orgA } from '../support/builders'
import { everything, expectNone, firstPageOf, forEachStore, found, freshStorePerTest, MakeStore, right } from './contract-kit'

interface Abandoned {
  readonly _tag: 'Abandoned'
}
const abandoned: Abandoned = { _tag: 'Abandoned' }

/** One write to every repository, over records the test stored first (see `storeExisting`). */
const writeEverything = (repositories: Repositories): TE.TaskEither<never, void> =>
  pipe(
    TE.Do,
    TE.chain(() => repositories.organisations.insert(anOrganisation({ id: 'org.new', name: 'New' }))),
    TE.chain(() => repositories.tokens.insert(aToken({ id: 'tok.new', orgId: 'org.new', secretHash: 'new-hash' }))),
    TE.chain(() => repositories.actions.insert(anAction({ id: 'act.new' }))),
    TE.chain(() => repositories.actions.update(anAction({ name: 'Changed', version: 2 }))),
    TE.chain(() => repositories.agents.insert(anAiAgent({ id: 'aia.new' }))),
    TE.chain(() => repositories.agents.link(orgA, 'aia.new', 'act.new', at(60))),
    TE.chain(() => repositories.agents.remove(orgA, 'aia.g1')),
    TE.chain(() => repositories.prospects.findOrCreate(aProspect({ id: 'pro.new', source: 'new-source' }))),
    TE.chain(() => repositories.prospects.saveStats(orgA, 'pro.p1', { conversationCount: 9, firstConversationAt: at(1), lastConversationAt: at(2) })),
    TE.chain(() => repositories.conversations.insert(aConversation({ id: 'con.new', prospectId: 'pro.new' }))),
    TE.chain(() => repositories.tokens.revoke('tok.t1', at(61))),
    TE.map(() => undefined),
    TE.mapLeft((error) => {
      throw new Error(`a write failed: ${JSON.stringify(error)}`)
    }),
  )

export const unitOfWorkContract = (makeStore: MakeStore): void => {
  const store = freshStorePerTest(makeStore)
  const repos = () => store().repositories

  beforeEach(async () => {
    await right(repos().organisations.insert(anOrganisation()))
    await right(repos().tokens.insert(aToken()))
    await right(repos().actions.insert(anAction()))
    await right(repos().agents.insert(anAiAgent()))
    await right(repos().agents.link(orgA, 'aia.g1', 'act.a1', at(50)))
    await right(repos().prospects.findOrCreate(aProspect()))
  })

  const expectUntouched = async (): Promise<void> => {
    await expectNone(repos().organisations.findById('org.new'))
    await expectNone(repos().tokens.findBySecretHash('new-hash'))
    await expectNone(repos().actions.findById(orgA, 'act.new'))
    expect(await found(repos().actions.findById(orgA, 'act.a1'))).to.deep.equal(anAction())
    await expectNone(repos().agents.findById(orgA, 'aia.new'))
    expect(await found(repos().agents.findById(orgA, 'aia.g1'))).to.deep.equal(anAiAgent())
    expect((await everything(repos().actions.listLinkedToAgent(orgA, 'aia.g1', firstPageOf()))).map((a) => a.id)).to.deep.equal(['act.a1'])
    await expectNone(repos().prospects.findById(orgA, 'pro.new'))
    expect(await found(repos().prospects.findById(orgA, 'pro.p1'))).to.deep.equal(aProspect())
    await expectNone(repos().conversations.findById(orgA, 'con.new'))
    expect(await found(repos().tokens.findBySecretHash('hash-of-t1'))).to.deep.equal(aToken())
  }

  it('commits every write when the work returns Right, and returns its value', async () => {
    const result = await store().unitOfWork.run((repositories) => pipe(writeEverything(repositories), TE.map(() => 42)))()
    expect(result).to.deep.equal(E.right(42))

    expect(await found(repos().organisations.findById('org.new'))).to.deep.equal(anOrganisation({ id: 'org.new', name: 'New' }))
    expect((await found(repos().tokens.findBySecretHash('new-hash'))).id).to.equal('tok.new')
    expect((await found(repos().actions.findById(orgA, 'act.a1'))).name).to.equal('Changed')
    await expectNone(repos().agents.findById(orgA, 'aia.g1'))
    expect((await everything(repos().actions.listLinkedToAgent(orgA, 'aia.new', firstPageOf()))).map((a) => a.id)).to.deep.equal(['act.new'])
    expect((await found(repos().prospects.findById(orgA, 'pro.p1'))).conversationCount).to.equal(9)
    expect((await found(repos().conversations.findById(orgA, 'con.new'))).prospectId).to.equal('pro.new')
    expect((await found(repos().tokens.findBySecretHash('hash-of-t1'))).revokedAt).to.equal(at(61))
  })

  it('rolls every write back when the work returns Left, and returns that Left unchanged', async () => {
    const result = await store().unitOfWork.run((repositories) =>
      pipe(
        writeEverything(repositories),
        TE.chainW(() => TE.left(abandoned)),
      ),
    )()
    expect(result).to.deep.equal(E.left(abandoned))
    if (E.isLeft(result)) expect(result.left).to.equal(abandoned)
    await expectUntouched()
  })

  it('rolls every write back when the work throws, and throws on', async () => {
    const failure = new Error('defect in the work')
    let thrown: unknown
    try {
      await store().unitOfWork.run((repositories) =>
        pipe(
          writeEverything(repositories),
          TE.chain(() => () => Promise.reject(failure)),
        ),
      )()
    } catch (error) {
      thrown = error
    }
    expect(thrown).to.equal(failure)
    await expectUntouched()
  })

  it('lets the work read its own writes', async () => {
    const result = await store().unitOfWork.run((repositories) =>
      pipe(
        repositories.actions.insert(anAction({ id: 'act.new' })),
        TE.chain(() => repositories.actions.findById(orgA, 'act.new')),
      ),
    )()
    expect(E.isRight(result) && result.right._tag === 'Some').to.equal(true)
  })

  it('keeps uncommitted writes from a read made outside while the work runs', async () => {
    let written = (): void => undefined
    const writtenSignal = new Promise<void>((resolve) => (written = resolve))
    let release = (): void => undefined
    const gate = new Promise<void>((resolve) => (release = resolve))
    const running = store().unitOfWork.run((repositories) =>
      pipe(
        repositories.actions.insert(anAction({ id: 'act.new' })),
        TE.chainFirst(() => async () => {
          written()
          await gate
          return E.right(undefined)
        }),
        TE.chainW(() => TE.left(abandoned)),
      ),
    )()
    await writtenSignal
    // A concurrent caller, as another request would be; it has every chance to run before the end.
    const outsideRead = repos().actions.findById(orgA, 'act.new')()
    await new Promise((resolve) => setTimeout(resolve, 20))
    release()
    expect(await running).to.deep.equal(E.left(abandoned))
    expect(await outsideRead).to.deep.equal(E.right({ _tag: 'None' }))
  })

  it('stays usable after a rollback and after a throw', async () => {
    await store().unitOfWork.run(() => TE.left(abandoned))()
    await store()
      .unitOfWork.run(() => () => Promise.reject(new Error('boom')))()
      .catch(() => undefined)
    const result = await store().unitOfWork.run((repositories) => repositories.actions.insert(anAction({ id: 'act.after' })))()
    expect(result).to.deep.equal(E.right(undefined))
    expect((await found(repos().actions.findById(orgA, 'act.after'))).id).to.equal('act.after')
  })

  it('answers each of concurrent units with its own outcome; a throw or a Left rolls back only its own writes', async () => {
    const failure = new Error('defect in one unit')
    const outcomes = await Promise.allSettled(
      Array.from({ length: 6 }, (_, n) =>
        store().unitOfWork.run((repositories) =>
          pipe(
            repositories.actions.insert(anAction({ id: `act.u${n}` })),
            TE.chainW((): TE.TaskEither<Abandoned, number> => (n === 2 ? () => Promise.reject(failure) : n === 4 ? TE.left(abandoned) : TE.right(n * 10))),
          ),
        )(),
      ),
    )
    expect(outcomes.map((o) => (o.status === 'fulfilled' ? o.value : o.reason))).to.deep.equal([E.right(0), E.right(10), failure, E.right(30), E.left(abandoned), E.right(50)])
    for (const n of [0, 1, 3, 5]) expect((await found(repos().actions.findById(orgA, `act.u${n}`))).id).to.equal(`act.u${n}`)
    for (const n of [2, 4]) await expectNone(repos().actions.findById(orgA, `act.u${n}`))
  })

  it('runs concurrent transactions without losing any of their writes', async () => {
    const results = await Promise.all(
      Array.from({ length: 10 }, (_, n) =>
        store().unitOfWork.run((repositories) =>
          pipe(
            repositories.actions.insert(anAction({ id: `act.n${n}` })),
            TE.chain(() => repositories.agents.link(orgA, 'aia.g1', `act.n${n}`, at(n))),
            TE.chainW(() => (n % 2 === 0 ? TE.right(n) : TE.left(abandoned))),
          ),
        )(),
      ),
    )
    expect(results.filter(E.isRight)).to.have.lengthOf(5)
    const linked = (await everything(repos().actions.listLinkedToAgent(orgA, 'aia.g1', firstPageOf()))).map((a) => a.id)
    expect(linked.sort()).to.deep.equal(['act.a1', 'act.n0', 'act.n2', 'act.n4', 'act.n6', 'act.n8'])
  })
}

forEachStore('UnitOfWork contract', unitOfWorkContract)
