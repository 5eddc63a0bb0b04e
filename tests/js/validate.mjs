// Runs a JavaScript SHACL engine on a trace as its users call it, and prints the validation report's
// results as JSON, for tests/test_shacl_engines.py:
//
//     node validate.mjs rdf-validate-shacl|shacl-engine SHAPES.ttl DATA.nt|DATA.nq
//
// The data is read with n3 (RDF 1.2 triple terms included), every graph of it merged into one data
// graph, nothing added; shacl-engine runs with its SPARQL plugin. Each result is an object of the
// report's properties (sh:focusNode, sh:sourceShape, ...), each value an RDF/JS term as JSON.

import { readFileSync } from 'node:fs'
import { Parser } from 'n3'
import rdf from 'rdf-ext'
import SHACLValidator from 'rdf-validate-shacl'
import { Validator } from 'shacl-engine'
import { targetResolvers, validations } from 'shacl-engine/sparql.js'

const SH = 'http://www.w3.org/ns/shacl#'
const FORMATS = { nt: 'N-Triples', nq: 'N-Quads', ttl: 'Turtle' }

function read (path, merged) {
  const format = FORMATS[path.split('.').pop()]
  const dataset = rdf.dataset()
  for (const quad of new Parser({ format }).parse(readFileSync(path, 'utf8'))) {
    dataset.add(merged ? rdf.quad(quad.subject, quad.predicate, quad.object) : quad)
  }
  return dataset
}

function term (node) {
  if (node.termType === 'Quad') {
    return { termType: 'Quad', subject: term(node.subject), predicate: term(node.predicate), object: term(node.object) }
  }
  const json = { termType: node.termType, value: node.value }
  if (node.termType === 'Literal') {
    json.datatype = node.datatype.value
    json.language = node.language
  }
  return json
}

function results (dataset) {
  const found = []
  for (const link of dataset.match(null, rdf.namedNode(SH + 'result'), null)) {
    const result = {}
    for (const quad of dataset.match(link.object, null, null)) {
      const key = quad.predicate.value.startsWith(SH) ? quad.predicate.value.slice(SH.length) : quad.predicate.value
      result[key] = term(quad.object)
    }
    found.push(result)
  }
  return found
}

const [engine, shapesPath, dataPath] = process.argv.slice(2)
const shapes = read(shapesPath, false)
const data = read(dataPath, true)
let report
if (engine === 'rdf-validate-shacl') {
  report = await new SHACLValidator(shapes).validate(data)
} else if (engine === 'shacl-engine') {
  report = await new Validator(shapes, { factory: rdf, targetResolvers, validations }).validate({ dataset: data })
} else {
  throw new Error(`unknown engine ${engine}`)
}
process.stdout.write(JSON.stringify({ conforms: report.conforms, results: results(report.dataset) }))
