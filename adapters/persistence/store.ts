import { Repositories, UnitOfWork } from '../../application/ports/unit-of-work'

/** A complete persistence adapter set: the repositories, transactions over them, and shutdown. */
export interface Store {
  readonly repositories: Repositories
  readonly unitOfWork: UnitOfWork
  /** Releases connections; the store is unusable afterwards. */
  readonly close: () => Promise<void>
}
