import { Actor } from '../../../domain/shared/audit'
import { newWorld, withTwoOrganisations, World } from './world'

/** A fresh world and the callers `withTwoOrganisations` made in it. */
export interface Scene {
  readonly world: World
  readonly alice: Actor
  readonly orgAdmin: Actor
  readonly bob: Actor
}

/** A new scene before every test of the calling describe; the getter is valid inside tests only. */
export const freshScenePerTest = (): (() => Scene) => {
  let scene: Scene | undefined
  beforeEach(async () => {
    const world = newWorld()
    scene = { world, ...(await withTwoOrganisations(world)) }
  })
  afterEach(() => {
    scene = undefined
  })
  return () => {
    if (scene === undefined) throw new Error('the scene exists only while a test runs')
    return scene
  }
}
