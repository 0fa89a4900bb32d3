// Pure: where an air quality index stands on its scale's published bands, in words and colour: the
// European Environment Agency's (good … extremely poor) or the US EPA's (good … hazardous). The same
// table as the daemon's (WeatherCore's AirQualityBand); Tests/web/air-quality.test.mjs and the
// Swift AirQualityBandTests check both against the same boundaries.
//
//   band(44, 'european')  // { level: 2, name: 'moderate', colour: '#F0E641', text: '#000000' }

// Per scale: the upper bound of each of the first five bands (a band includes its bound), the six
// names, the six colours; the text on the two worst bands is white, else black (4.5:1 at least).
export const SCALES = {
  european: {
    label: 'European AQI',
    bounds: [20, 40, 60, 80, 100],
    names: ['good', 'fair', 'moderate', 'poor', 'very poor', 'extremely poor'],
    colours: ['#50F0E6', '#50CCAA', '#F0E641', '#FF5050', '#960032', '#7D2181'],
  },
  us: {
    label: 'US AQI',
    bounds: [50, 100, 150, 200, 300],
    names: ['good', 'moderate', 'unhealthy for sensitive groups', 'unhealthy', 'very unhealthy', 'hazardous'],
    colours: ['#00E400', '#FFFF00', '#FF7E00', '#FF0000', '#8F3F97', '#7E0023'],
  },
};

// The scale `air-quality.scale` names, european for anything else.
export function scaleOf(name) {
  return Object.hasOwn(SCALES, name) ? name : 'european';
}

// The index of `scale` in a feature's air_quality ({european_aqi, us_aqi, …}); null when unknown.
export function indexOf(airQuality, scale) {
  if (!airQuality || typeof airQuality !== 'object') return null;
  const value = scaleOf(scale) === 'us' ? airQuality.us_aqi : airQuality.european_aqi;
  return typeof value === 'number' && Number.isFinite(value) ? value : null;
}

// The band of `index` on `scale`: { level, name, colour, text }; null for a negative or not finite index.
export function band(index, scale) {
  if (typeof index !== 'number' || !Number.isFinite(index) || index < 0) return null;
  const s = SCALES[scaleOf(scale)];
  let level = s.bounds.findIndex((bound) => index <= bound);
  if (level < 0) level = s.bounds.length;
  return { level: level, name: s.names[level], colour: s.colours[level], text: level >= 4 ? '#FFFFFF' : '#000000' };
}

// The credit CAMS's data needs wherever it is shown.
export const ATTRIBUTION = 'Air quality: Copernicus Atmosphere Monitoring Service (CAMS), via Open-Meteo.com';
