/**
 * Summarises V8 CPU profiles (node --cpu-prof, as `BENCH_CPU_PROF_DIR` makes the bench write them):
 * the functions with the most self time, and self time by package or project folder.
 *
 *   node dist/bench/profile-summary.js <file.cpuprofile | dir> [top=25] [--during <text>]
 *
 * `--during` counts only the 100 ms slices of the profile in which code from a file whose path
 * contains <text> ran: `--during conversation-routes` keeps the moments the conversations were
 * answered, and leaves out the service's start, the idle baseline runs and the webhook backlog
 * the bench drains after each run.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs'
import * as path from 'node:path'

interface CallFrame {
  readonly functionName: string
  readonly url: string
  readonly lineNumber: number
}

interface ProfileNode {
  readonly id: number
  readonly callFrame: CallFrame
  readonly children?: ReadonlyArray<number>
}

export interface CpuProfile {
  readonly nodes: ReadonlyArray<ProfileNode>
  /** Microseconds, as timeDeltas. */
  readonly startTime: number
  readonly samples: ReadonlyArray<number>
  readonly timeDeltas: ReadonlyArray<number>
}

export interface SummaryOptions {
  /** How many functions and places to list. */
  readonly top?: number
  /** Count only the slices of time in which code from a file whose path contains this ran. */
  readonly during?: string
}

/** The length of the slices `during` keeps or leaves out. */
const sliceUs = 100_000

export interface SelfTime {
  readonly name: string
  readonly ms: number
  readonly share: number
}

export interface ProfileSummary {
  readonly totalMs: number
  readonly functions: ReadonlyArray<SelfTime>
  readonly places: ReadonlyArray<SelfTime>
}

/** `node_modules/<package>`, `node:<module>`, the project folder, or what V8 calls it. */
const placeOf = (frame: CallFrame): string => {
  const url = frame.url
  if (url === '') return frame.functionName.startsWith('(') ? frame.functionName : '(native)'
  const modules = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url)
  if (modules !== null) return modules[1]
  if (url.startsWith('node:')) return url.replace(/^node:(internal\/)?/, 'node:').split('/')[0]
  const project = /\/dist\/([^/]+\/(?:[^/]+\/)?)/.exec(url)
  return project === null ? url : project[1]
}

const nameOf = (frame: CallFrame): string => {
  const file = frame.url === '' ? '' : ` ${frame.url.replace(/^.*\/(node_modules|dist)\//, '$1/').replace(/^file:\/\//, '')}:${frame.lineNumber + 1}`
  return `${frame.functionName || '(anonymous)'}${file}`
}

const ranked = (totals: Map<string, number>, totalMs: number, top: number): SelfTime[] =>
  [...totals]
    .sort((a, b) => b[1] - a[1])
    .slice(0, top)
    .map(([name, ms]) => ({ name, ms, share: ms / totalMs }))

/** When each sample was taken, in microseconds: the profile's start plus the deltas so far. */
const sampleTimes = (profile: CpuProfile): number[] => {
  let at = profile.startTime
  return profile.timeDeltas.map((delta) => (at += delta))
}

const sliceOf = (timeUs: number): number => Math.floor(timeUs / sliceUs)

/** The slices of `profile` in which a frame from a file whose path contains `marker` was on the stack. */
const slicesWith = (profile: CpuProfile, frames: ReadonlyMap<number, CallFrame>, times: ReadonlyArray<number>, marker: string): Set<number> => {
  const parentOf = new Map<number, number>()
  for (const node of profile.nodes) for (const child of node.children ?? []) parentOf.set(child, node.id)
  const marked = new Map<number, boolean>()
  const isMarked = (id: number): boolean => {
    let known = marked.get(id)
    if (known === undefined) {
      const parent = parentOf.get(id)
      known = (frames.get(id)?.url.includes(marker) ?? false) || (parent !== undefined && isMarked(parent))
      marked.set(id, known)
    }
    return known
  }
  const slices = new Set<number>()
  profile.samples.forEach((id, i) => {
    if (isMarked(id)) slices.add(sliceOf(times[i]))
  })
  return slices
}

export const summariseProfiles = (profiles: ReadonlyArray<CpuProfile>, options: SummaryOptions = {}): ProfileSummary => {
  const top = options.top ?? 25
  const byFunction = new Map<string, number>()
  const byPlace = new Map<string, number>()
  let totalMs = 0
  for (const profile of profiles) {
    const frames = new Map(profile.nodes.map((node) => [node.id, node.callFrame]))
    const times = sampleTimes(profile)
    const kept = options.during === undefined ? null : slicesWith(profile, frames, times, options.during)
    profile.samples.forEach((id, i) => {
      const frame = frames.get(id)
      const ms = (profile.timeDeltas[i] ?? 0) / 1000
      if (frame === undefined || frame.functionName === '(idle)') return
      if (kept !== null && !kept.has(sliceOf(times[i]))) return
      totalMs += ms
      const name = nameOf(frame)
      byFunction.set(name, (byFunction.get(name) ?? 0) + ms)
      const place = placeOf(frame)
      byPlace.set(place, (byPlace.get(place) ?? 0) + ms)
    })
  }
  return { totalMs, functions: ranked(byFunction, totalMs, top), places: ranked(byPlace, totalMs, top) }
}

export const formatSummary = (summary: ProfileSummary): string => {
  const line = (entry: SelfTime): string => `${(entry.share * 100).toFixed(1).padStart(5)}%  ${entry.ms.toFixed(0).padStart(7)} ms  ${entry.name}`
  return [
    `busy (not idle): ${summary.totalMs.toFixed(0)} ms`,
    '',
    'self time by package or folder:',
    ...summary.places.map(line),
    '',
    'self time by function:',
    ...summary.functions.map(line),
    '',
  ].join('\n')
}

const profilesIn = (target: string): CpuProfile[] => {
  const files = statSync(target).isDirectory()
    ? readdirSync(target)
        .filter((name) => name.endsWith('.cpuprofile'))
        .map((name) => path.join(target, name))
    : [target]
  return files.map((file) => JSON.parse(readFileSync(file, 'utf8')) as CpuProfile)
}

if (require.main === module) {
  const args = process.argv.slice(2)
  const duringAt = args.indexOf('--during')
  const during = duringAt === -1 ? undefined : args[duringAt + 1]
  const [target, top] = duringAt === -1 ? args : [...args.slice(0, duringAt), ...args.slice(duringAt + 2)]
  if (target === undefined || (duringAt !== -1 && during === undefined) || (top !== undefined && !(Number(top) > 0))) {
    process.stderr.write('usage: node dist/bench/profile-summary.js <file.cpuprofile | dir> [top] [--during <text>]\n')
    process.exit(2)
  }
  process.stdout.write(formatSummary(summariseProfiles(profilesIn(target), { top: top === undefined ? 25 : Number(top), during })))
}
