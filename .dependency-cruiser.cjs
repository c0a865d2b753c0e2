/**
 * Dependency rules for the layout src/ is moving to: modules (domain logic and stores), surfaces (the HTTP/WebSocket
 * entry points, one folder per surface), shared (what both use), storage (the only place that talks to the drivers).
 * Run: npm run deps (part of npm run lint and of .ci/run). Type-only imports count for every rule.
 * @type {import('dependency-cruiser').IConfiguration}
 */
module.exports = {
  forbidden: [
    {
      name: 'modules-not-to-surfaces-or-http',
      comment:
        'src/modules/** must not import src/surfaces/** nor src/http/**, type-only imports included. What modules need from http/ moves to src/shared/.',
      severity: 'error',
      from: { path: '^src/modules/' },
      to: { path: '^src/(surfaces|http)/' },
    },
    {
      name: 'no-foreign-module-store',
      comment:
        "A file in src/modules/A/ must not import another module's store (src/modules/B/**/*.store.ts or the store implementations *.sqlite.ts), type-only imports included.",
      severity: 'error',
      from: { path: '^src/modules/([^/]+)/' },
      to: { path: '^src/modules/[^/]+/.*[.](store|sqlite)[.]ts$', pathNot: '^src/modules/$1/' },
    },
    {
      name: 'config-is-a-leaf',
      comment: 'src/config.ts imports nothing from the rest of src/ (node built-ins and packages are fine).',
      severity: 'error',
      from: { path: '^src/config\\.ts$' },
      to: { path: '^src/' },
    },
    {
      name: 'no-circular',
      comment: 'No import cycles, type-only ones included.',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
    {
      name: 'src-not-to-test-or-bench',
      comment: 'Production code must not import test/** or bench/**.',
      severity: 'error',
      from: { path: '^src/' },
      to: { path: '^(test|bench)/' },
    },
    {
      name: 'surfaces-stay-apart',
      comment: 'src/surfaces/A/** must not import src/surfaces/B/** for B != A, except src/surfaces/shared/.',
      severity: 'error',
      from: { path: '^src/surfaces/([^/]+)/' },
      to: { path: '^src/surfaces/[^/]+/', pathNot: '^src/surfaces/($1|shared)/' },
    },
    {
      name: 'db-drivers-only-in-storage',
      comment:
        "Only src/storage/ imports 'better-sqlite3' or 'pg' (type-only imports included). A warning, not an error: modules still import the better-sqlite3 types today.",
      severity: 'warn',
      from: { path: '^src/', pathNot: '^src/storage/' },
      // Type-only imports of a driver resolve to its @types package.
      to: { path: '^node_modules/(@types/)?(better-sqlite3|pg)/' },
    },
  ],
  options: {
    doNotFollow: { path: ['node_modules'] },
    exclude: { path: ['^data/', '(^|/)dist/', '^coverage/'] },
    // Keep type-only imports in the graph (without this they are dropped before the rules see them).
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default', 'types'],
      extensions: ['.ts', '.mts', '.js', '.mjs', '.cjs', '.json', '.d.ts'],
      mainFields: ['module', 'main', 'types', 'typings'],
    },
    reporterOptions: {
      text: { highlightFocused: true },
    },
  },
};
