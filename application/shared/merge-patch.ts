type Members = Record<string, unknown>

const isObject = (u: unknown): u is Members => typeof u === 'object' && u !== null && !Array.isArray(u)

/** defineProperty, not assignment: a `__proto__` key in the patch must stay a plain key. */
const define = (base: Members, key: string, value: unknown): void => {
  Object.defineProperty(base, key, { value, enumerable: true, writable: true, configurable: true })
}

/**
 * RFC 7396 JSON merge patch: objects merge key by key, `null` removes a key, `undefined` (which
 * JSON cannot hold) changes nothing, anything else (arrays included) replaces the target. Walked
 * with a stack of its own rather than by recursion, since a patch is a client's JSON and may nest
 * as deep as its body allows (a 1 MiB body holds 150,000 levels), far past the call stack.
 */
export const applyMergePatch = (target: unknown, patch: unknown): unknown => {
  if (!isObject(patch)) return patch
  const root: Members = isObject(target) ? { ...target } : {}
  const pending: Array<readonly [Members, Members]> = [[root, patch]]
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    const [base, members] = next
    for (const [key, value] of Object.entries(members)) {
      // An embedding program's undefined member is one JSON leaves out: no change, not a removal.
      if (value === undefined) continue
      if (value === null) delete base[key]
      else if (isObject(value)) {
        // The merged object takes its place now, so the keys keep the order they would by recursion.
        const current = Object.prototype.hasOwnProperty.call(base, key) ? base[key] : undefined
        const merged: Members = isObject(current) ? { ...current } : {}
        define(base, key, merged)
        pending.push([merged, value])
      } else define(base, key, value)
    }
  }
  return root
}
