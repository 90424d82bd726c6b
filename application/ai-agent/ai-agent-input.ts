import * as E from 'fp-ts/Either'
import { pipe } from 'fp-ts/function'
import * as t from 'io-ts'
import { agentStatuses, AiAgentCreationFields, AiAgentFields, Mission, Voice } from '../../domain/ai-agent/ai-agent'
import { arrayOf, httpUrl, jsonObject, oneOf, orNull, refined, strictObject, text } from '../shared/codecs'
import { decodeWith } from '../shared/decode'

const canonicalZones = new Set([...Intl.supportedValuesOf('timeZone'), 'UTC'])

/** Words IANA writes in capitals (`US/Pacific`, `Etc/GMT+5`, `Australia/NSW`, `America/Knox_IN`). */
const capitalWords = ['US', 'GMT', 'UTC', 'UCT', 'ACT', 'LHI', 'NSW', 'IN']
/** Words IANA writes in lower case (`Europe/Isle_of_Man`, `Africa/Dar_es_Salaam`, `America/Port-au-Prince`). */
const particles = ['of', 'es', 'au']
/** The names whose capitals follow no rule. */
const irregularZones = ['America/Argentina/ComodRivadavia', 'Antarctica/DumontDUrville', 'Antarctica/McMurdo', 'Brazil/DeNoronha', 'Chile/EasterIsland', 'Mexico/BajaNorte', 'Mexico/BajaSur']

const ianaWord = (word: string): string => {
  const upper = word.toUpperCase()
  if (capitalWords.includes(upper)) return upper
  const lower = word.toLowerCase()
  return particles.includes(lower) ? lower : upper.charAt(0) + lower.slice(1)
}

/**
 * `zone` with its capitals where IANA puts them: each word capitalised but for the exceptions above.
 * V8 rewrites a name this way before ICU looks it up, which is how Intl ignores case.
 */
const ianaSpelling = (zone: string): string =>
  irregularZones.find((name) => name.toLowerCase() === zone.toLowerCase()) ?? zone.replace(/[A-Za-z]+/g, ianaWord)

/**
 * A Region/City name (or UTC) the runtime's time-zone database knows. The formatter ignores case
 * and resolves aliases (Asia/Kolkata and Asia/Calcutta are one zone), so a name is taken when it is
 * canonical, or resolves and is written as IANA writes it: not a case variant (Europe/BERLIN, and
 * Asia/KOLKATA, US/PACIFIC, which the formatter resolves to another name).
 */
const isKnownTimeZone = (zone: string): boolean => {
  if (canonicalZones.has(zone)) return true
  if (!/^[A-Z][A-Za-z_-]*(?:\/[A-Z0-9][A-Za-z0-9_+-]*)+$/.test(zone)) return false
  try {
    const resolved = new Intl.DateTimeFormat('en-US', { timeZone: zone }).resolvedOptions().timeZone
    return resolved === zone || ianaSpelling(zone) === zone
  } catch {
    return false
  }
}

const timezone = refined(text(1, 512), isKnownTimeZone, 'must be an IANA time zone name written Region/City, such as Europe/Berlin, or UTC')

const stage = strictObject('MissionStage', { stageName: text(1, 512), description: text(0), otherNotes: text(0) })

const mission = strictObject(
  'Mission',
  {},
  { prompt: text(0), objective: text(0), greeting: text(0), sequence: arrayOf(stage), farewell: text(0) },
)

const voice = strictObject(
  'Voice',
  {},
  {
    gender: text(1, 512),
    languageAccent: strictObject('LanguageAccent', {}, { language: text(1, 512), accent: text(1, 512) }),
    // The prefix names the kind; the part after it names the model, so `voi.` alone names none.
    modelId: refined(text(1, 512), (id) => id.startsWith('voi.') && id.length > 'voi.'.length, 'must be a voice model id: voi. and its name', { pattern: '^voi\\..' }),
  },
)

const writable = {
  name: text(1, 512),
  imageUrl: httpUrl(512),
  status: oneOf(agentStatuses),
  role: text(1, 512),
  roleDescription: text(1),
  timezone,
}

const audit = ['id', 'orgId', 'createdBy', 'createdAt', 'updatedBy', 'updatedAt']

/** PUT replaces the writable fields; transcriber and intelligenceProvider are fixed at creation. */
export const aiAgentUpdateCodec = strictObject('AiAgent', writable, { mission, voice }, [
  ...audit,
  'transcriber',
  'intelligenceProvider',
])

export const aiAgentCreateCodec = strictObject(
  'AiAgent',
  writable,
  { mission, voice, transcriber: jsonObject, intelligenceProvider: jsonObject },
  audit,
)

const fieldsOf = (body: t.TypeOf<typeof aiAgentUpdateCodec>): AiAgentFields => ({
  name: body.name,
  imageUrl: body.imageUrl,
  status: body.status,
  role: body.role,
  roleDescription: body.roleDescription,
  timezone: body.timezone,
  mission: orNull(body.mission as Mission | null | undefined),
  voice: orNull(body.voice as Voice | null | undefined),
})

const decodeUpdate = decodeWith(aiAgentUpdateCodec)
const decodeCreate = decodeWith(aiAgentCreateCodec)

export const decodeAiAgentFields = (input: unknown) => pipe(decodeUpdate(input), E.map(fieldsOf))

export const decodeAiAgentCreation = (input: unknown) =>
  pipe(
    decodeCreate(input),
    E.map(
      (body): AiAgentCreationFields => ({
        ...fieldsOf(body),
        transcriber: orNull(body.transcriber),
        intelligenceProvider: orNull(body.intelligenceProvider),
      }),
    ),
  )
