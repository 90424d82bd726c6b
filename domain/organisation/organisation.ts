import { Timestamp } from '../shared/time'

export interface Organisation {
  readonly id: string
  readonly name: string
  readonly createdAt: Timestamp
}

/** An API token as stored: only the hash of its secret is kept. */
export interface ApiToken {
  readonly id: string
  readonly orgId: string
  readonly subject: string | null
  readonly name: string | null
  readonly secretHash: string
  readonly createdAt: Timestamp
  readonly revokedAt: Timestamp | null
}

export const defaultOrganisationName = 'default'

export const isRevoked = (token: ApiToken): boolean => token.revokedAt !== null
