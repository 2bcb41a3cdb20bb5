// The page loads Chart.js as a classic script (/vendor/chart.umd.min.js), which sets the global
// `Chart`: the class of the chart.js package with every controller, scale and plugin registered.
import type { Chart as ChartJs } from 'chart.js';

declare global {
  const Chart: typeof ChartJs;
}
