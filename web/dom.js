// The page's small DOM helpers. Text goes in as textContent, never as HTML.

// A new element with a class and a text (both optional).
export function el(tag, className, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined && text !== null) node.textContent = String(text);
  return node;
}

// The page's element that matches a selector (index.html has it), or null.
export function $(selector) {
  return document.querySelector(selector);
}

// A link that opens in a new tab and tells the other page nothing of this one.
export function externalLink(text, href) {
  const link = el('a', null, text);
  link.href = href;
  link.rel = 'noopener';
  link.target = '_blank';
  return link;
}

// A control waiting for its request's answer (aria-busy, and the style of it).
export function busy(control, on) {
  control.classList.toggle('busy', on);
  control.setAttribute('aria-busy', on ? 'true' : 'false');
}
