/**
 * JSON text for answers, where parts of a body are JSON text already (a stored transcript, a
 * stored JSON Schema): they are written into the answer as they are, not parsed and written again.
 */

/** A piece of a body that is JSON text already; `jsonText` writes it in as it is. */
export class JsonFragment {
  constructor(readonly text: string) {}

  /** Outside `jsonText` (a plain JSON.stringify), the value the text stands for. */
  toJSON(): unknown {
    if (collecting === null) return JSON.parse(this.text)
    collecting.push(this.text)
    return placeholder
  }
}

/**
 * What a fragment writes while `jsonText` runs. Written out by JSON.stringify it is `"\u0000"`,
 * which no other value can produce: the NUL character is refused in every string the service
 * stores, and a backslash in a string is written as two.
 */
const placeholder = '\u0000'
const placeholderText = JSON.stringify(placeholder)

let collecting: string[] | null = null

/** JSON.stringify(value), with every JsonFragment in it written as its text. */
export const jsonText = (value: unknown): string => {
  const fragments: string[] = []
  let text: string
  collecting = fragments
  try {
    text = JSON.stringify(value)
  } finally {
    collecting = null
  }
  if (fragments.length === 0) return text
  const pieces = text.split(placeholderText)
  // A NUL string that got in by another way would be one piece too many: write it the slow way.
  if (pieces.length !== fragments.length + 1) return JSON.stringify(value)
  const parts: string[] = new Array<string>(pieces.length + fragments.length)
  for (let i = 0; i < fragments.length; i++) {
    parts[2 * i] = pieces[i]
    parts[2 * i + 1] = fragments[i]
  }
  parts[parts.length - 1] = pieces[pieces.length - 1]
  return parts.join('')
}
