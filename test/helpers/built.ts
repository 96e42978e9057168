// Imported by the helpers that spawn a bin entry. The bins run the compiled dist/, so it is made
// here, in the test process (once for concurrent test files, under the build lock), and never
// inside a spawned child whose output and time limit a test checks.
import { ensureBuilt } from '../../bin/build.js';

await ensureBuilt();
