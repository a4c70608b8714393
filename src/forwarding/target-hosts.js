'use strict'

// Where forwarders may not send (LRS_FORWARD_FORBIDDEN_HOSTS): a store's
// admin makes forwarders, and must not make the LRS call into the
// operator's network (the cloud's metadata service, a database's HTTP
// port). Entries, comma-separated:
//   private        loopback, private, link-local, shared and unique-local
//                  ranges (IPv4 and IPv6)
//   10.0.0.0/8     a range (CIDR), IPv4 or IPv6
//   192.0.2.7      one address
//   *.internal     a host name, `*.` for any name under it
// A name is resolved and every address it gives is checked, when the
// forwarder is set and again before each delivery (a name that resolved to
// a public address then may resolve to a private one later).

const dns = require('node:dns/promises')
const net = require('node:net')

const PRIVATE = ['127.0.0.0/8', '10.0.0.0/8', '172.16.0.0/12', '192.168.0.0/16', '169.254.0.0/16', '100.64.0.0/10', '0.0.0.0/8', '::1/128', '::/128', 'fc00::/7', 'fe80::/10']

function addRange (list, range) {
  const [address, bits] = range.split('/')
  const type = net.isIPv6(address) ? 'ipv6' : 'ipv4'
  if (bits === undefined) list.addAddress(address, type)
  else list.addSubnet(address, Number(bits), type)
}

// Why `text` is not a valid list, or null (config.js).
function forbiddenHostsProblem (text) {
  for (const entry of listOf(text)) {
    if (entry === 'private') continue
    const [address, bits] = entry.split('/')
    const version = net.isIP(address)
    if (!version) {
      if (bits === undefined && /^(\*\.)?[a-z0-9-]+(\.[a-z0-9-]+)*$/i.test(entry)) continue
      return `LRS_FORWARD_FORBIDDEN_HOSTS has an entry that is neither "private", an address, a range nor a host name: ${entry}`
    }
    if (bits !== undefined && !(/^\d+$/.test(bits) && Number(bits) <= (version === 4 ? 32 : 128))) return `LRS_FORWARD_FORBIDDEN_HOSTS has a range with a bad prefix length: ${entry}`
  }
  return null
}

const listOf = (text) => String(text).split(',').map((v) => v.trim()).filter(Boolean)

function forbiddenHosts (text, { lookup = (host) => dns.lookup(host, { all: true }) } = {}) {
  const addresses = new net.BlockList()
  const names = []
  for (const entry of listOf(text)) {
    if (entry === 'private') for (const range of PRIVATE) addRange(addresses, range)
    else if (net.isIP(entry.split('/')[0])) addRange(addresses, entry)
    else names.push(entry.toLowerCase())
  }
  const none = !listOf(text).length

  const blocked = (address) => {
    const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address)
    const plain = mapped ? mapped[1] : address
    return addresses.check(plain, net.isIPv6(plain) ? 'ipv6' : 'ipv4')
  }
  const nameBlocked = (host) => names.some((n) => n.startsWith('*.') ? host.endsWith(n.slice(1)) : host === n)

  return {
    // Why the LRS may not send to `url`, or null.
    async problem (url) {
      if (none) return null
      const host = new URL(url).hostname.replace(/^\[|\]$/g, '').toLowerCase()
      if (nameBlocked(host)) return `the operator forbids forwarding to ${host}`
      let found
      if (net.isIP(host)) found = [host]
      else {
        try {
          found = (await lookup(host)).map((a) => a.address)
        } catch {
          return null // not resolvable now: checked again before each delivery
        }
      }
      const bad = found.find(blocked)
      return bad ? `the operator forbids forwarding to ${host} (${bad})` : null
    }
  }
}

module.exports = { forbiddenHosts, forbiddenHostsProblem }
