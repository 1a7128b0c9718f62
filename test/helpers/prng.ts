/** The tools' seeded PRNG (mulberry32), shared so tests and benchmarks draw the same sequences. */
export { seededRandom } from '../../tools/random';
