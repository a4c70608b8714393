// Building the page from data without ever parsing data as markup: every
// string becomes a Text node (append, textContent), never innerHTML.
// Statements are hostile input: a display name holding <script> is shown as
// those characters.

// el('a', { href: '#/x', class: 'y', onclick: f }, 'text', child, [more])
export function el (tag, attrs = {}, ...children) {
  const e = document.createElement(tag)
  for (const [name, value] of Object.entries(attrs)) {
    if (value === null || value === undefined || value === false) continue
    if (name.startsWith('on')) e.addEventListener(name.slice(2), value)
    else if (name === 'href') e.setAttribute('href', inPageHref(value))
    else e.setAttribute(name, value === true ? '' : String(value))
  }
  append(e, children)
  return e
}

function append (parent, children) {
  for (const c of children.flat(Infinity)) {
    if (c === null || c === undefined || c === false) continue
    parent.append(c instanceof Node ? c : String(c))
  }
}

// Links go to the console's own pages or this origin only: an IRI from a
// statement (javascript:…) never becomes an href.
function inPageHref (href) {
  const s = String(href)
  if (s.startsWith('#') || (s.startsWith('/') && !s.startsWith('//')) || s.startsWith('../')) return s
  throw new Error('refusing a link off the console: ' + s)
}

// Replaces what `parent` holds.
export function show (parent, ...children) {
  parent.replaceChildren()
  append(parent, children)
  return parent
}

// A labelled input; `attrs` go on the input.
export function field (label, attrs = {}) {
  return el('label', {}, label, ' ', el('input', attrs))
}

export function table (headings, rows, caption) {
  return el('table', {},
    caption ? el('caption', {}, caption) : null,
    el('thead', {}, el('tr', {}, headings.map((h) => el('th', { scope: 'col' }, h)))),
    el('tbody', {}, rows))
}

export function errorText (err) {
  return el('p', { class: 'error', role: 'alert' }, err.message || String(err))
}

// A form that sends what it says: on submit, `requestOf(form)` makes the
// request's body (an error it throws is the form's fault, shown in
// `message`), and `send(body)` sends it and shows what came back; an
// error from the API is shown in `message` too.
export function onSubmit (form, message, { requestOf, send }) {
  form.addEventListener('submit', async (event) => {
    event.preventDefault()
    let body
    try {
      body = requestOf(form)
    } catch (err) {
      show(message, errorText(err))
      return
    }
    try {
      await send(body)
    } catch (err) {
      show(message, errorText(err))
    }
  })
}

export function formValues (form) {
  return Object.fromEntries(new FormData(form).entries())
}

// What cannot be undone waits for `expected` typed again: a labelled input
// and a danger button that stays disabled until the input holds it.
// `type`: the button's ('button' inside a form that submits something
// else). { field, button, input, confirmed () }.
export function typedConfirmation (expected, label, buttonText, { name = 'confirm', type = 'submit' } = {}) {
  const input = el('input', { name, autocomplete: 'off' })
  const button = el('button', { type, class: 'danger', disabled: true }, buttonText)
  input.addEventListener('input', () => { button.disabled = input.value !== expected })
  return { field: el('label', {}, label, ' ', input), button, input, confirmed: () => input.value === expected }
}

// 2048 -> '2.0 KiB'
export function bytes (n) {
  return n >= 1048576 ? `${(n / 1048576).toFixed(1)} MiB` : n >= 1024 ? `${(n / 1024).toFixed(1)} KiB` : `${n} B`
}

// Text from a statement as a cell shows it: at most `max` characters (the
// whole is in the statement's JSON), in a <bdi>, so that a right-to-left
// override in a name cannot reorder what the page puts after it.
export function clip (text, max = 300) {
  const s = String(text)
  return el('bdi', {}, s.length > max ? s.slice(0, max) + '…' : s)
}

// JSON as text with the direction marks escaped (the same JSON): a
// right-to-left override in a string cannot reorder the lines shown.
export function jsonText (value) {
  return JSON.stringify(value, null, 2).replace(/[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g, (c) => '\\u' + c.charCodeAt(0).toString(16).padStart(4, '0'))
}
