/**
 * The dependency rule of STYLE.md, checked on every `npm test`:
 * config -> adapters -> application -> domain, and nothing the other way.
 */
module.exports = {
  forbidden: [
    {
      name: 'domain-is-pure',
      comment: 'domain/ imports fp-ts and other domain modules only.',
      severity: 'error',
      from: { path: '^domain/' },
      to: { pathNot: ['^domain/', '^node_modules/fp-ts/'] },
    },
    {
      name: 'application-depends-inward',
      comment: 'application/ imports domain/, fp-ts and io-ts only: no adapters, no config, no frameworks.',
      severity: 'error',
      from: { path: '^application/' },
      to: { pathNot: ['^application/', '^domain/', '^node_modules/fp-ts/', '^node_modules/io-ts/'] },
    },
    {
      name: 'adapters-do-not-wire',
      comment: 'adapters/ never reach into the composition root.',
      severity: 'error',
      from: { path: '^adapters/' },
      to: { path: '^config/' },
    },
    {
      name: 'di-only-in-config',
      comment: 'tsyringe and reflect-metadata belong to the composition root.',
      severity: 'error',
      from: { pathNot: '^config/' },
      to: { path: '^node_modules/(tsyringe|reflect-metadata)/' },
    },
    {
      name: 'no-circular',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    exclude: { path: '^(dist|tests)/' },
  },
}
