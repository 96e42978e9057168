// `service --version` and `service --help`: answered by the compiled CLI's top level alone, which
// loads only the sources below, so bin/service.js checks that these (not all ~300 sources) are
// older than dist/ before it runs them. test/listener/cli.test.ts checks the list against what those answers load.

/** The arguments answered by the top level alone (no argument at all prints the usage too). */
export const topLevelArgs = ['--version', '-v', 'version', '--help', '-h', 'help'];

/** The sources the top level loads for them, and the compiler settings they are built with. */
export const topLevelSources = ['bin/cli.ts', 'listener/cli/index.ts', 'shared/version.ts', 'tsconfig.build.json', 'tsconfig.json'];

/** Whether `args` (the command line after `service`) is answered by the top level alone. */
export const answeredByTopLevel = (args) => args.length === 0 || topLevelArgs.includes(args[0]);
