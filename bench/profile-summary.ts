/**
 * Summarises V8 CPU profiles (node --cpu-prof, as `BENCH_CPU_PROF_DIR` makes the bench write them):
 * the functions with the most self time, and self time by package or project folder.
 *
 *   node dist/bench/profile-summary.js <file.cpuprofile | dir> [top=25]
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
}

interface CpuProfile {
  readonly nodes: ReadonlyArray<ProfileNode>
  readonly samples: ReadonlyArray<number>
  readonly timeDeltas: ReadonlyArray<number>
}

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

export const summariseProfiles = (profiles: ReadonlyArray<CpuProfile>, top = 25): ProfileSummary => {
  const byFunction = new Map<string, number>()
  const byPlace = new Map<string, number>()
  let totalMs = 0
  for (const profile of profiles) {
    const frames = new Map(profile.nodes.map((node) => [node.id, node.callFrame]))
    profile.samples.forEach((id, i) => {
      const frame = frames.get(id)
      const ms = (profile.timeDeltas[i] ?? 0) / 1000
      if (frame === undefined || frame.functionName === '(idle)') return
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
  const [target, top] = process.argv.slice(2)
  if (target === undefined) {
    process.stderr.write('usage: node dist/bench/profile-summary.js <file.cpuprofile | dir> [top]\n')
    process.exit(2)
  }
  process.stdout.write(formatSummary(summariseProfiles(profilesIn(target), top === undefined ? 25 : Number(top))))
}
