// The connection to weatherd: JSON-RPC 2.0 over the page's WebSocket (`ws`, relative to the page).
// Requests and their answers, notifications, and reconnecting after a drop (0.5, 1, 2, 4, then
// every 5 s). No DOM: what it says of itself goes to `onStatus`, and the panel shows it.
//
//   const connection = new Connection({
//     url,                          // the WebSocket's address (socketURL(location.href))
//     onOpen(),                     // connected (again): watch, ask for what the page shows
//     onNotification(method, params),
//     onStatus({ open, text, retry }),  // "Live", "Connecting…", "Offline" or "weatherd is busy",
//                                       // and the retry countdown ("retrying in 3 s") or null
//     onClose(),                    // the connection was lost (requests out were rejected)
//     createSocket(url), timers     // for tests: a WebSocket, and setTimeout and its kin (the browser's)
//   });
//   connection.connect();
//   connection.request('search', { city: 'Paris' }).then(…)   // rejects with an RPCError

export const RECONNECT_MAX_MS = 5000;      // the contract: reconnect at most 5 s apart
export const REQUEST_TIMEOUT_MS = 120000;  // a locate may wait up to gpsd.locate_timeout
export const BUSY = -32007;                // the daemon turned the connection away at web.max_clients

// How long to wait before the attempt-th reconnect (1, 2, …): 0.5 s, 1 s, 2 s, 4 s, then every 5 s.
export function reconnectDelay(attempt) {
  return Math.min(RECONNECT_MAX_MS, 250 * Math.pow(2, attempt));
}

// The page's WebSocket address: `ws` beside the page (so it works behind a path prefix), ws: or wss:.
export function socketURL(pageURL) {
  const url = new URL('ws', pageURL);
  url.protocol = url.protocol === 'https:' ? 'wss:' : 'ws:';
  url.hash = '';
  url.search = '';
  return url.href;
}

// A request's error: the daemon's JSON-RPC error (code, message, data), or code 0 for one of the
// connection's own (not connected, no answer, the connection lost).
export class RPCError extends Error {
  constructor(error) {
    super(error && typeof error.message === 'string' ? error.message : 'request failed');
    this.code = error && error.code;
    this.data = error && error.data;
  }
}

export class Connection {
  constructor(options) {
    this.url = options.url;
    this.onOpen = options.onOpen || (() => {});
    this.onNotification = options.onNotification || (() => {});
    this.onStatus = options.onStatus || (() => {});
    this.onClose = options.onClose || (() => {});
    this.createSocket = options.createSocket || ((url) => new globalThis.WebSocket(url));
    this.timers = options.timers || globalThis;
    this.socket = null;
    this.open = false;
    this.attempt = 0;       // reconnects since the last open connection
    this.reason = null;     // what the daemon said before closing (busy), for the status
    this.text = '';         // what the status says the connection is
    this.timer = null;
    this.countdown = null;
    this.pending = new Map();  // id -> {resolve, reject, timer}
    this.nextId = 1;
  }

  status(open, text, retry) {
    this.open = open;
    this.text = text;
    this.onStatus({ open: open, text: text, retry: retry || null });
  }

  // A request; the promise settles with its result, or an RPCError.
  request(method, params) {
    return new Promise((resolve, reject) => {
      if (!this.open || !this.socket) {
        reject(new RPCError({ code: 0, message: 'not connected to weatherd' }));
        return;
      }
      const id = this.nextId++;
      const timer = this.timers.setTimeout(() => {
        this.pending.delete(id);
        reject(new RPCError({ code: 0, message: method + ': no answer from weatherd' }));
      }, REQUEST_TIMEOUT_MS);
      this.pending.set(id, { resolve: resolve, reject: reject, timer: timer });
      this.socket.send(JSON.stringify({ jsonrpc: '2.0', id: id, method: method, params: params || {} }));
    });
  }

  // One message of the daemon: an answer, an error for no request, or a notification.
  receive(message) {
    if (!message || typeof message !== 'object') return;
    if (message.id !== undefined && message.id !== null && (message.result !== undefined || message.error !== undefined)) {
      const call = this.pending.get(message.id);
      if (!call) return;
      this.pending.delete(message.id);
      this.timers.clearTimeout(call.timer);
      if (message.error) call.reject(new RPCError(message.error));
      else call.resolve(message.result);
      return;
    }
    if (message.error) {
      // An error for no request: busy (web.max_clients reached) before the server closes.
      if (message.error.code === BUSY) this.reason = 'weatherd is busy';
      console.warn('weatherd:', message.error.message);
      return;
    }
    if (typeof message.method === 'string') this.onNotification(message.method, message.params);
  }

  // A WebSocket message's text: one message or a batch.
  receiveText(data) {
    if (typeof data !== 'string') return;
    let parsed;
    try { parsed = JSON.parse(data); } catch (err) { return; }
    if (Array.isArray(parsed)) parsed.forEach((message) => this.receive(message));
    else this.receive(parsed);
  }

  connect() {
    this.timers.clearTimeout(this.timer);
    this.timers.clearInterval(this.countdown);
    // A retry keeps what the connection was said to be (Offline, busy): only its suffix changes.
    if (this.attempt) this.status(false, this.text, 'reconnecting…');
    else this.status(false, 'Connecting…');
    let socket;
    try {
      socket = this.createSocket(this.url);
    } catch (err) {
      this.scheduleReconnect();
      return;
    }
    this.socket = socket;
    socket.addEventListener('open', () => {
      this.attempt = 0;
      this.status(true, 'Live');
      this.onOpen();
    });
    socket.addEventListener('message', (event) => this.receiveText(event.data));
    socket.addEventListener('close', () => {
      if (this.socket !== socket) return;
      this.socket = null;
      for (const [id, call] of this.pending) {
        this.timers.clearTimeout(call.timer);
        call.reject(new RPCError({ code: 0, message: 'the connection to weatherd was lost' }));
        this.pending.delete(id);
      }
      this.onClose();
      this.scheduleReconnect();
    });
  }

  scheduleReconnect() {
    this.attempt += 1;
    const delay = reconnectDelay(this.attempt);
    let left = Math.ceil(delay / 1000);
    const what = this.reason || 'Offline';
    this.reason = null;
    const retrying = () => 'retrying\u00a0in\u00a0' + left + '\u00a0s';  // wrapped as one
    this.status(false, what, retrying());
    this.countdown = this.timers.setInterval(() => {
      left -= 1;
      if (left > 0) this.status(false, what, retrying());
    }, 1000);
    this.timer = this.timers.setTimeout(() => this.connect(), delay);
  }
}
