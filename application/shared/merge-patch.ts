/**
 * RFC 7396 JSON merge patch: objects merge key by key, `null` removes a key, anything else
 * (arrays included) replaces the target.
 */
export const applyMergePatch = (target: unknown, patch: unknown): unknown => {
  if (typeof patch !== 'object' || patch === null || Array.isArray(patch)) return patch
  const base: Record<string, unknown> =
    typeof target === 'object' && target !== null && !Array.isArray(target) ? { ...(target as Record<string, unknown>) } : {}
  for (const [key, value] of Object.entries(patch)) {
    // defineProperty, not assignment: a `__proto__` key in the patch must stay a plain key.
    if (value === null) delete base[key]
    else Object.defineProperty(base, key, { value: applyMergePatch(base[key], value), enumerable: true, writable: true, configurable: true })
  }
  return base
}
