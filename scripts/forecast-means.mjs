// `node scripts/forecast-means.mjs` (after `npm run build`): how the auto-compact forecast's choice
// of mean was made (shared/usage/forecast.ts). Simulated sessions grow their context by a log-normal
// amount per turn (steady, or slow then fast); at every turn the whole turns that fit before a
// 160K threshold are forecast from the last ten changes by each mean, against the actual turns.
// Prints each mean's bias and mean absolute error in turns (positive: the forecast came late).
import { median } from '../dist/shared/usage/forecast.js';

const SESSIONS = 400; // per scenario: enough that the errors are stable to the turn
const START = 20_000; // the context after the first turns
const THRESHOLD = 160_000; // an auto-compact threshold of a 200K window
const SAMPLE = 10; // the changes the forecast reads (daemon/usage/status.ts's PACE_TURNS − 1)

let seed = 11;
const random = () => {
  seed = (seed * 1103515245 + 12345) % 2147483648;
  return seed / 2147483648;
};
const normal = () => Math.sqrt(-2 * Math.log(random() + 1e-12)) * Math.cos(2 * Math.PI * random());
const mean = (values) => values.reduce((sum, value) => sum + value, 0) / values.length;
const trimmed = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  return mean(sorted.length >= 5 ? sorted.slice(1, -1) : sorted);
};
const recentWeighted = (values) => {
  let weights = 0;
  let sum = 0;
  values.forEach((value, index) => {
    const weight = 0.5 ** ((values.length - 1 - index) / 5); // a half-life of five turns
    weights += weight;
    sum += weight * value;
  });
  return sum / weights;
};
const MEANS = { mean, trimmed, median, recentWeighted };
const SCENARIOS = [
  { name: 'steady, sigma 1', sigma: 1, growth: () => 2_000 },
  { name: 'slow then fast, sigma 0.7', sigma: 0.7, growth: (turn) => (turn < 20 ? 800 : 4_000) },
  { name: 'slow then fast, sigma 1.2', sigma: 1.2, growth: (turn) => (turn < 20 ? 800 : 4_000) },
];

for (const scenario of SCENARIOS) {
  const errors = Object.fromEntries(Object.keys(MEANS).map((name) => [name, []]));
  for (let session = 0; session < SESSIONS; session++) {
    const contexts = [START];
    for (let turn = 0; (contexts.at(-1) ?? 0) < THRESHOLD; turn++) {
      const { sigma } = scenario;
      contexts.push((contexts.at(-1) ?? 0) + scenario.growth(turn) * Math.exp(sigma * normal() - (sigma * sigma) / 2));
    }
    const passes = contexts.findIndex((context) => context >= THRESHOLD);
    for (let turn = 3; turn < passes; turn++) {
      const changes = [];
      for (let i = Math.max(1, turn - SAMPLE + 1); i <= turn; i++) changes.push(contexts[i] - contexts[i - 1]);
      const actual = passes - turn - 1;
      for (const [name, of] of Object.entries(MEANS)) {
        const forecast = Math.max(0, Math.ceil((THRESHOLD - contexts[turn]) / of(changes)) - 1);
        errors[name].push(forecast - actual);
      }
    }
  }
  const cells = Object.entries(errors).map(
    ([name, list]) => `${name} bias ${mean(list).toFixed(1)} MAE ${mean(list.map(Math.abs)).toFixed(1)}`,
  );
  console.log(`${scenario.name}: ${cells.join(' | ')}`);
}
