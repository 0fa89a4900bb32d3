// The locate button: runs the rule of web/locate-flow.js with the daemon (`locate`,
// `location.report`) and the browser's Geolocation API, and says where the last located position
// came from (data-testid="location-source", a polite live region). Refusals and failures are words
// in the notice (an alert), never exceptions; the daemon's texts go in as textContent.
//
//   attachLocate({ button, connection, location: () => daemon.location, showNotice });

import { busy, $ } from './dom.js';
import { GEOLOCATION_OPTIONS, LOCATE_IDLE, locateStep } from './locate-flow.js';

// Whether this page can ask the browser for its position: the Geolocation API is offered to
// secure contexts only (https, or a page on localhost).
function geolocationSupport() {
  if (!window.isSecureContext) return 'insecure';
  return navigator.geolocation ? 'available' : 'absent';
}

// button: the locate button; connection: request(); location(): the daemon's fused location
// (`state.location`) as the page last heard it, or null; showNotice(text, kind): the panel's notice.
export function attachLocate({ button, connection, location, showNotice }) {
  const sourceLine = $('[data-testid="location-source"]');
  let flow = LOCATE_IDLE;

  function send(event) {
    const step = locateStep(flow, event);
    flow = step.flow;
    for (const action of step.actions) run(action);
  }

  const failed = (err) => send({ type: 'failed', code: err && err.code, message: err && err.message });

  function run(action) {
    switch (action.do) {
      case 'busy':
        busy(button, action.on);
        break;
      case 'notice':
        showNotice(action.text, action.kind);
        break;
      case 'source':
        sourceLine.dataset.source = action.source;
        if (sourceLine.textContent !== action.text) sourceLine.textContent = action.text;  // said once
        sourceLine.hidden = false;
        break;
      case 'locate':
        connection.request('locate', action.params)
          .then((feature) => send({ type: 'located', feature: feature }), failed);
        break;
      case 'report':
        connection.request('location.report', action.params)
          .then((answer) => send({
            type: 'reported',
            accepted: !!answer && answer.accepted === true,
            reason: answer && typeof answer.reason === 'string' ? answer.reason : '',
          }), failed);
        break;
      case 'ask-browser':
        navigator.geolocation.getCurrentPosition(
          (position) => send({
            type: 'position', lat: position.coords.latitude, lon: position.coords.longitude,
            accuracy: position.coords.accuracy, timestamp: position.timestamp,
          }),
          (error) => send({ type: 'position-error', code: error.code }),
          GEOLOCATION_OPTIONS);
        break;
    }
  }

  button.addEventListener('click', () => {
    send({ type: 'click', location: location(), geolocation: geolocationSupport() });
  });
}
