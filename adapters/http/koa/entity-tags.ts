/** An entity tag (RFC 9110 §8.8.3): weak or strong, and its opaque part without the quotes. */
export interface EntityTag {
  readonly weak: boolean
  readonly opaque: string
}

/** One element of a list of entity tags with the spaces and the comma after it; an empty element has no tag. */
const listElement = /[ \t]*(?:(W\/)?"([\x21\x23-\x7e\x80-\xff]*)")?[ \t]*(?:,|$)/y

/**
 * The value of If-Match or If-None-Match: `*`, or the entity tags it lists; null when it is
 * neither (a list without any tag included). As RFC 9110 §5.6.1 asks, empty list elements
 * (`"1", , "2"`) are skipped, and a comma between a tag's quotes belongs to the tag.
 */
export const entityTagsOf = (value: string): '*' | ReadonlyArray<EntityTag> | null => {
  const header = value.trim()
  if (header === '*') return '*'
  const tags: EntityTag[] = []
  // Each element ends at a comma or at the end, so every round moves on.
  for (let at = 0; at < header.length; at = listElement.lastIndex) {
    listElement.lastIndex = at
    const element = listElement.exec(header)
    if (element === null) return null
    if (element[2] !== undefined) tags.push({ weak: element[1] !== undefined, opaque: element[2] })
  }
  return tags.length === 0 ? null : tags
}

/** Whether one of `tags` names the strong tag `etag` (`"3"`) by weak comparison (RFC 9110 §8.8.3.2): `W/"3"` does. */
export const namesByWeakComparison = (tags: ReadonlyArray<EntityTag>, etag: string): boolean =>
  tags.some((tag) => `"${tag.opaque}"` === etag)

/** Whether one of `tags` is the strong tag `etag` by strong comparison (RFC 9110 §8.8.3.2): `W/"3"` is not. */
export const namesByStrongComparison = (tags: ReadonlyArray<EntityTag>, etag: string): boolean =>
  tags.some((tag) => !tag.weak && `"${tag.opaque}"` === etag)
