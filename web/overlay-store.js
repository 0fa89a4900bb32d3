// The overlays as this page has them: the last full `overlays` collection with every `overlays.diff`
// since applied, its features known by id. No DOM and no connection: the entry module feeds it the
// notifications and tells the map and the panel what changed; Tests/web tests it under Node.

import { isNum } from './format.js';

// A feature the map can draw: an object with an id and a [lon, lat] position, or an alert's area.
export function isDrawable(feature) {
  const c = feature && feature.geometry && feature.geometry.coordinates;
  if (!feature || feature.id === undefined || feature.id === null || !Array.isArray(c)) return false;
  return (isNum(c[0]) && isNum(c[1])) || isAlertArea(feature);
}

// An alert's area (`source: "alert"`): a Polygon or MultiPolygon, drawn as such, not as a marker.
export function isAlertArea(feature) {
  const p = feature && feature.properties;
  const type = feature && feature.geometry && feature.geometry.type;
  return !!p && p.source === 'alert' && (type === 'Polygon' || type === 'MultiPolygon') &&
    Array.isArray(feature.geometry.coordinates);
}

export class OverlayStore {
  constructor() {
    this.reset();
  }

  // Forgets the collection: a new watch is under way, and its full collection comes next.
  reset() {
    this.seq = null;
    this.focus = null;
    this.known = false;          // a full collection has come since the last reset
    this.byId = new Map();       // String(id) -> feature, in the collection's order
  }

  // A full `overlays` collection; false when it is none (and then nothing changes).
  applyFull(collection) {
    if (!collection || typeof collection !== 'object') return false;
    const byId = new Map();
    for (const feature of Array.isArray(collection.features) ? collection.features : []) {
      if (!isDrawable(feature)) continue;
      const id = String(feature.id);
      if (!byId.has(id)) byId.set(id, feature);  // an id twice: the first is drawn
    }
    this.byId = byId;
    this.seq = collection.seq;
    this.focus = collection.focus;
    this.known = true;
    return true;
  }

  // An `overlays.diff` from the collection with seq `base`: the ids that left, the features whose
  // content changed and the new ones. Answers what the page is to do:
  // - 'applied': the collection has changed;
  // - 'ignored': no full collection yet (one is on its way), nothing changed;
  // - 'resync': a diff from another collection than this one (which should not happen): the
  //   collection is forgotten, and the page watches again for a full one.
  applyDiff(diff) {
    if (!diff || typeof diff !== 'object' || !this.known) return 'ignored';
    if (diff.base !== this.seq) {
      this.reset();
      return 'resync';
    }
    for (const id of Array.isArray(diff.removed) ? diff.removed : []) this.byId.delete(String(id));
    for (const list of [diff.changed, diff.added]) {
      for (const feature of Array.isArray(list) ? list : []) {
        if (isDrawable(feature)) this.byId.set(String(feature.id), feature);
      }
    }
    this.seq = diff.seq;
    this.focus = diff.focus;
    return 'applied';
  }

  // The weather features (the markers), in the collection's order (a changed one keeps its place,
  // a new one is last).
  get features() {
    return [...this.byId.values()].filter((f) => !isAlertArea(f));
  }

  // The alerts' areas, in the collection's order.
  get areas() {
    return [...this.byId.values()].filter(isAlertArea);
  }

  // The weather features.
  get size() {
    return this.features.length;
  }

  feature(id) {
    return this.byId.get(String(id)) || null;
  }

  // The feature of a watched city "Name" or "Name,CC": its own (source city) or, when a search of
  // the same place won the id, that one; null when the map has none.
  cityFeature(city) {
    const [name, country] = String(city).split(',').map((part) => part.trim().toLowerCase());
    let found = null;
    for (const feature of this.byId.values()) {
      const p = feature.properties || {};
      if (typeof p.name !== 'string' || p.name.toLowerCase() !== name) continue;
      if (country && typeof p.country === 'string' && p.country.toLowerCase() !== country) continue;
      if (p.source === 'city') return feature;
      if (!found && p.source !== 'around' && p.source !== 'region') found = feature;
    }
    return found;
  }

  // The ids of the watched cities' features, sorted, as one text: it changes when a city is added
  // or removed (by this page or another client).
  cityIds() {
    return this.features.filter((f) => f.properties && f.properties.source === 'city')
      .map((f) => String(f.id)).sort().join('|');
  }

  // The text or location result (a search's or a locate's), or null.
  result() {
    return this.features.find((f) => {
      const source = f.properties && f.properties.source;
      return source === 'text' || source === 'location';
    }) || null;
  }

  // The providers (`properties.provider`) of the features and alert areas, each once, in the
  // order of `names`.
  providers(names) {
    const all = [...this.byId.values()];
    return names.filter((name) => all.some((f) => f.properties && f.properties.provider === name));
  }
}
