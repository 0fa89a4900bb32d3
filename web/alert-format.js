// How the page says an alert: its severity as a class name, and from and until when. Pure: no DOM,
// tested under Node (Tests/web).

import { parseTime } from './format.js';

// CAP's severities, most severe first, as the page names them.
export const SEVERITIES = ['extreme', 'severe', 'moderate', 'minor', 'unknown'];

// `Severe` -> 'severe'; anything else 'unknown'.
export function severityOf(text) {
  const severity = typeof text === 'string' ? text.toLowerCase() : '';
  return SEVERITIES.includes(severity) ? severity : 'unknown';
}

function when(date) {
  return date.toLocaleString(undefined, { weekday: 'short', day: 'numeric', month: 'short', hour: '2-digit', minute: '2-digit' });
}

// "From Thu 21 May, 02:42 until Thu 21 May, 03:30" (in the browser's time zone); only the part
// known; null when neither is.
export function alertTimes(props) {
  const onset = parseTime(props && props.onset);
  const ends = parseTime(props && props.ends);
  if (onset && ends) return 'From ' + when(onset) + ' until ' + when(ends);
  if (ends) return 'Until ' + when(ends);
  if (onset) return 'From ' + when(onset);
  return null;
}
