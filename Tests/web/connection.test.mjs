// The connection (web/connection.js) with a stand-in WebSocket and timers: requests and their
// answers, notifications, a busy daemon, a lost connection and the reconnect delays.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { BUSY, Connection, RPCError, reconnectDelay, socketURL } from '../../web/connection.js';

class FakeSocket {
  constructor(url) {
    this.url = url;
    this.sent = [];
    this.listeners = {};
  }
  addEventListener(name, fn) { (this.listeners[name] ||= []).push(fn); }
  emit(name, event) { for (const fn of this.listeners[name] || []) fn(event); }
  send(text) { this.sent.push(JSON.parse(text)); }
  reply(message) { this.emit('message', { data: JSON.stringify(message) }); }
}

// Timers that run only when told to.
class FakeTimers {
  constructor() { this.due = new Map(); this.next = 1; }
  setTimeout(fn, ms) { const id = this.next++; this.due.set(id, { fn, ms, every: false }); return id; }
  setInterval(fn, ms) { const id = this.next++; this.due.set(id, { fn, ms, every: true }); return id; }
  clearTimeout(id) { this.due.delete(id); }
  clearInterval(id) { this.due.delete(id); }
  // Runs the one-shot timer set for `ms`.
  fire(ms) {
    for (const [id, timer] of this.due) {
      if (!timer.every && timer.ms === ms) { this.due.delete(id); timer.fn(); return; }
    }
    assert.fail('no timer of ' + ms + ' ms');
  }
  pending() { return [...this.due.values()].filter((t) => !t.every).map((t) => t.ms); }
}

function connected(options = {}) {
  const sockets = [];
  const statuses = [];
  const notifications = [];
  const timers = new FakeTimers();
  let opened = 0;
  let closed = 0;
  const connection = new Connection({
    url: 'ws://127.0.0.1:8080/ws',
    createSocket: (url) => { const s = new FakeSocket(url); sockets.push(s); return s; },
    timers: timers,
    onOpen: () => { opened += 1; },
    onClose: () => { closed += 1; },
    onNotification: (method, params) => notifications.push([method, params]),
    onStatus: (status) => statuses.push(status),
    ...options,
  });
  connection.connect();
  sockets[0].emit('open');
  return {
    connection, sockets, statuses, notifications, timers,
    get opened() { return opened; }, get closed() { return closed; },
  };
}

test('the address is ws beside the page, ws: or wss:, without query or fragment', () => {
  assert.equal(socketURL('http://127.0.0.1:8080/'), 'ws://127.0.0.1:8080/ws');
  assert.equal(socketURL('https://example.org/weather/index.html?x=1#map'), 'wss://example.org/weather/ws');
});

test('reconnects after 0.5, 1, 2, 4, then every 5 s', () => {
  assert.deepEqual([1, 2, 3, 4, 5, 6, 20].map(reconnectDelay), [500, 1000, 2000, 4000, 5000, 5000, 5000]);
});

test('a request is answered by the reply of its id, an error reply rejects it with the daemon\'s error', async () => {
  const c = connected();
  assert.equal(c.opened, 1);
  assert.deepEqual(c.statuses.at(-1), { open: true, text: 'Live', retry: null });
  const first = c.connection.request('search', { city: 'Paris' });
  const second = c.connection.request('forecast');
  const [a, b] = c.sockets[0].sent;
  assert.deepEqual(a, { jsonrpc: '2.0', id: a.id, method: 'search', params: { city: 'Paris' } });
  assert.deepEqual(b.params, {});
  c.sockets[0].reply({ jsonrpc: '2.0', id: b.id, error: { code: -32001, message: 'city not found', data: { city: 'x' } } });
  c.sockets[0].reply({ jsonrpc: '2.0', id: a.id, result: { ok: true } });
  assert.deepEqual(await first, { ok: true });
  await assert.rejects(second, (err) => err instanceof RPCError && err.code === -32001 && err.message === 'city not found'
    && err.data.city === 'x');
  assert.deepEqual(c.timers.pending(), [], 'the answered requests\' time-outs are cleared');
});

test('notifications, one or in a batch, go to onNotification; what is no message is dropped', () => {
  const c = connected();
  c.sockets[0].reply({ jsonrpc: '2.0', method: 'state', params: { phase: 'idle' } });
  c.sockets[0].emit('message', { data: JSON.stringify([
    { jsonrpc: '2.0', method: 'overlays', params: { seq: 1 } }, 7, null,
    { jsonrpc: '2.0', id: 99, result: {} },
  ]) });
  c.sockets[0].emit('message', { data: '{"jsonrpc":' });
  c.sockets[0].emit('message', { data: new ArrayBuffer(4) });
  assert.deepEqual(c.notifications, [['state', { phase: 'idle' }], ['overlays', { seq: 1 }]]);
});

test('a request without a connection, or without an answer in time, is rejected', async () => {
  const c = connected();
  const slow = c.connection.request('locate');
  c.timers.fire(120000);
  await assert.rejects(slow, { code: 0, message: 'locate: no answer from weatherd' });
  const idle = new Connection({ url: 'ws://x/ws', createSocket: () => new FakeSocket(), timers: new FakeTimers() });
  await assert.rejects(idle.request('version'), { code: 0, message: 'not connected to weatherd' });
});

test('a lost connection rejects what is out, says so, counts down and connects again', async () => {
  const c = connected();
  const out = c.connection.request('locate');
  c.sockets[0].emit('close');
  await assert.rejects(out, { code: 0, message: 'the connection to weatherd was lost' });
  assert.equal(c.closed, 1);
  assert.equal(c.connection.open, false);
  assert.deepEqual(c.statuses.at(-1), { open: false, text: 'Offline', retry: 'retrying\u00a0in\u00a01\u00a0s' });
  c.timers.fire(500);
  assert.equal(c.sockets.length, 2);
  assert.deepEqual(c.statuses.at(-1), { open: false, text: 'Offline', retry: 'reconnecting…' });
  c.sockets[1].emit('close');
  assert.deepEqual(c.timers.pending(), [1000]);
  c.timers.fire(1000);
  c.sockets[2].emit('open');
  assert.equal(c.opened, 2);
  assert.equal(c.connection.attempt, 0);
  c.sockets[0].emit('close');  // an old socket's late close changes nothing
  assert.equal(c.connection.open, true);
});

test('a busy daemon says so before it closes; the page says it until an attempt ends otherwise', (t) => {
  const warned = t.mock.method(console, 'warn', () => {});
  const c = connected();
  c.sockets[0].reply({ jsonrpc: '2.0', id: null, error: { code: BUSY, message: 'too many clients' } });
  assert.equal(warned.mock.callCount(), 1);
  c.sockets[0].emit('close');
  assert.deepEqual(c.statuses.at(-1), { open: false, text: 'weatherd is busy', retry: 'retrying\u00a0in\u00a01\u00a0s' });
  c.timers.fire(500);
  assert.equal(c.statuses.at(-1).text, 'weatherd is busy');
  c.sockets[1].emit('close');
  assert.equal(c.statuses.at(-1).text, 'Offline');
});
