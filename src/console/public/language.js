// A language map's text for the page (xAPI display and name): en-US, en,
// or the first there is; '' when there is none. Statements are hostile
// input: the text goes into the page as text only (dom.js).

export function languageText (map) {
  if (!map || typeof map !== 'object') return ''
  const text = map['en-US'] || map.en || Object.values(map)[0]
  return typeof text === 'string' ? text : ''
}
