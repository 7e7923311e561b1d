// The same selectors on @marcbachmann/cel-js: ns per evaluation.
//   node bench.mjs ITERATIONS   (run with NODE_PATH-free resolution from build/bench)
// Prints "js <name> <ns/eval> <result>" per selector.
// Quantity and semver are not part of cel-js: they are registered here as
// small custom types so the expression runs unchanged; their cost is what
// any embedder of cel-js would pay.
import {Environment} from '@marcbachmann/cel-js'

const suffixes = {Ki: 2n ** 10n, Mi: 2n ** 20n, Gi: 2n ** 30n, Ti: 2n ** 40n, k: 1000n, M: 10n ** 6n, G: 10n ** 9n, '': 1n}
class Quantity {
  constructor (text) {
    const m = /^([0-9]+)([A-Za-z]*)$/.exec(text)
    if (!m || !(m[2] in suffixes)) throw new Error(`invalid quantity ${text}`)
    this.value = BigInt(m[1]) * suffixes[m[2]]
  }
}
class Semver {
  constructor (text) {
    const [maj, min, pat] = text.split('.')
    this.majorV = BigInt(maj); this.minorV = BigInt(min); this.patchV = BigInt(pat)
  }
}

const env = new Environment()
  .registerType('Quantity', Quantity)
  .registerType('Semver', Semver)
  .registerVariable('device', 'map')
  .registerFunction('quantity(string): Quantity', (s) => new Quantity(s))
  .registerFunction('Quantity.isGreaterThan(Quantity): bool', (a, b) => a.value > b.value)
  .registerFunction('Semver.major(): int', (v) => v.majorV)

const device = {
  driver: 'test-driver.cdi.k8s.io',
  attributes: {'test-driver.cdi.k8s.io': {driverVersion: new Semver('1.0.0'), model: 'test'}},
  capacity: {'test-driver.cdi.k8s.io': {memory: new Quantity('8Gi')}},
  allowMultipleAllocations: false
}

const selectors = [
  ['driver', 'device.driver == "x"'],
  ['scheduler_perf', 'device.attributes["test-driver.cdi.k8s.io"].driverVersion.major() >= 1 && ' +
    'device.capacity["test-driver.cdi.k8s.io"].memory.isGreaterThan(quantity("1Mi"))']
]

const iterations = Number(process.argv[2] || 1000000)
for (const [name, expr] of selectors) {
  const program = env.parse(expr)
  const ctx = {device}
  let result
  for (let i = 0; i < 10000; i++) result = program(ctx) // warm up the JIT
  const t0 = process.hrtime.bigint()
  for (let i = 0; i < iterations; i++) result = program(ctx)
  const t1 = process.hrtime.bigint()
  console.log(`js ${name} ${(Number(t1 - t0) / iterations).toFixed(1)} ${result}`)
}
