"""The ontology, the shapes and the rule registry, indexed the way the pages need them.

The shapes and the rules come from the linter's registry (``tgtrace.rules``),
the ontology's inventory from ``tgtrace.tracemodel.vocabulary`` (see ``sitegen.ontology``
for the documentation it adds), so a page can only describe what the linter
checks.
"""

from __future__ import annotations

from tgtrace import rules
from tgtrace.ground import resources
from tgtrace.tracemodel.naming import local_name

from .constraints import Condition, PropertyUse, ShapeIndex
from .ontology import ClassInfo, Ontology


class Vocabulary:
    """Every documented term, with what the shapes and rules say about it."""

    def __init__(self):
        self.ontology = Ontology(resources.ontology_graph())
        self.shapes = ShapeIndex(rules.model())
        self.rules = rules.all_rules()
        self.metadata = self.ontology.metadata
        self.classes = self.ontology.classes
        self.predicates = self.ontology.predicates
        self.datatypes = self.ontology.datatypes
        self.individuals = {i.iri: (c, i) for c in self.classes.values() for i in c.individuals}
        # Per predicate: what value-level shapes (sh:targetSubjectsOf) say about its values.
        self.value_constraints: dict[str, PropertyUse] = self.shapes.value_constraints
        self.conditions: list[Condition] = self.shapes.conditions
        self.rule_scopes: dict[str, list[tuple[str, str]]] = {}
        self.rule_predicates: dict[str, list[str]] = {}
        self.shapes.read_classes(self.classes)
        self._add_domain_predicates()
        self._index_rules()

    def _add_domain_predicates(self) -> None:
        for info in self.classes.values():
            # Predicates the ontology gives this class as domain belong on its page
            # too, with whatever the value shapes say about them.
            for predicate in self.predicates.values():
                if info.iri in predicate.domains and predicate.iri not in info.properties and not predicate.deprecated:
                    info.properties[predicate.iri] = PropertyUse(path=predicate.iri, constrained=False)
            for path, use in info.properties.items():
                if path in self.value_constraints:
                    use.merge_values(self.value_constraints[path])

    def _index_rules(self) -> None:
        for rule in self.rules.values():
            self.rule_scopes[rule.code], self.rule_predicates[rule.code] = self.shapes.rule_scope(rule)
            for target in rule.targets:
                if target in self.classes and rule.code not in self.classes[target].rules:
                    self.classes[target].rules.append(rule.code)
                # A rule about a predicate belongs in that predicate's row.
                if target in self.classes and rule.path in self.classes[target].properties:
                    self.classes[target].properties[rule.path].rules.add(rule.code)
            for predicate in self.rule_predicates[rule.code]:
                if predicate in self.predicates and rule.code not in self.predicates[predicate].rules:
                    self.predicates[predicate].rules.append(rule.code)
        for info in self.classes.values():
            info.rules.sort()
            for parent in info.derives_from:
                if parent in self.classes and info.iri not in self.classes[parent].derived_by:
                    self.classes[parent].derived_by.append(info.iri)
            for path, use in info.properties.items():
                if use.constrained and path in self.predicates and info.iri not in self.predicates[path].used_by:
                    self.predicates[path].used_by.append(info.iri)
        for info in self.classes.values():
            info.derived_by.sort(key=local_name)
        for predicate in self.predicates.values():
            predicate.used_by.sort(key=local_name)
            predicate.rules.sort()

    # -- lookups ----------------------------------------------------------

    def ancestors(self, iri: str) -> list[str]:
        return self.ontology.ancestors(iri)

    def types_to_assert(self, info: ClassInfo) -> list[str]:
        """The types the shapes require an instance to state beside its own.

        Only the shapes decide this: the ontology's superclasses are true of the
        class, but TrustGraph does not write all of them (a Thought is not typed
        prov:Entity), and no consumer infers them.
        """
        return [iri for iri in info.must_assert if iri != info.iri]

    def related_classes(self, info: ClassInfo) -> list[str]:
        """Classes whose shapes also apply to an instance: its ancestors and the types it must assert."""
        related = list(self.ancestors(info.iri))
        related += [iri for iri in info.must_assert if iri not in related and iri != info.iri]
        return related

    def mixins_of(self, info: ClassInfo) -> list[str]:
        """Mixin classes whose tg:mixinFor names this class."""
        return [c.iri for c in self.classes.values() if info.iri in c.mixin_for]

    def conditions_for(self, info: ClassInfo) -> list[Condition]:
        return [c for c in self.conditions if c.predicate in info.properties]
