"""Chat prompts for the stoichiometry families: a system message and a user message stating the
task, the notation and the answer format (``<answer>...</answer>``). Several phrasings per family;
which one a task uses is drawn from its RNG (or fixed with the ``phrasing`` option)."""
from __future__ import annotations

from typing import Mapping, Sequence

from rlvr.chem.notation import format_bag, format_plain
from rlvr.generators.stoich.conventional import display_formula

SYSTEM_PROMPTS: tuple[str, ...] = (
    "You are a careful chemist. Reason about conservation of atoms and charge, then write only the final "
    "answer inside <answer>...</answer>.",
    "You solve chemical stoichiometry problems exactly. Think step by step, then give the final answer inside "
    "<answer>...</answer>.",
    "You are an expert in reaction stoichiometry. Work it out, and put the final answer inside <answer>...</answer> "
    "with nothing after it.",
)

NOTATION: dict[str, str] = {
    "formula": "Molecules are written as molecular formulas in Hill order (carbon first, then hydrogen, then the other "
               "elements alphabetically); an ion carries its charge at the end, e.g. Fe+2 or SO4-2.",
    "smiles": "Molecules are written as SMILES strings (hydrogen atoms are implicit; ions carry their charge inside "
              "brackets, e.g. [Na+] or [O-]).",
}
#: the formula notation when inorganic species are shown in their conventional spelling (balancing tasks)
CONVENTIONAL_NOTATION = ("Molecules are written as molecular formulas: organic molecules in Hill order (carbon first, "
                         "then hydrogen, then the other elements alphabetically), inorganic species in their usual "
                         "notation (HBr, NaOH, Ca(OH)2); an ion carries its charge at the end, e.g. Fe+2 or SO4-2.")
BAG_NOTATION = ("A bag of molecules is written as {k}X.{k}Y: each molecule is preceded by its count in braces and the "
                "molecules are separated by dots.")
EQUATION_NOTATION = "In a reaction, '>>' separates the left side from the right side."

_PRODUCT_INTROS = (
    "The following molecules are put together:",
    "A reaction mixture contains these molecules:",
    "Consider this starting mixture:",
)
_LIMITING_RULES = (
    "The reaction runs as many times as the available reactants allow (the limiting reactant decides). Reagents and "
    "catalysts are not consumed, and molecules that do not react remain in the mixture.",
    "Let the reaction go to completion: it repeats until a reactant runs out. Reagents and catalysts come out "
    "unchanged and any unreacted molecules stay.",
    "The reaction proceeds until the limiting reactant is used up; reagents and catalysts are not consumed and excess "
    "molecules are left over.",
)
_PAPER_RULE = ("Predict the molecules after the reaction under the ChemAlgebra Type 2 convention: reagents are not "
               "consumed and molecules that do not react appear on the product side.")
_PRODUCT_QUESTIONS = (
    "Which molecules are present after the reaction, and how many of each?",
    "Give the complete bag of molecules after the reaction.",
    "What is the content of the mixture afterwards?",
)
_PRODUCT_ANSWER = ("Answer with the complete bag in the same notation, listing every molecule once with its total "
                   "count (products, leftover reactants and reagents), inside <answer>...</answer>, for example "
                   "<answer>{2}A.{1}B</answer>.")

_BALANCE_INTROS = (
    "Balance the following chemical equation with the smallest whole-number coefficients:",
    "Find the smallest positive integer coefficients that balance this equation (atoms and charge):",
    "Balance this reaction so that every element and the total charge are conserved, using the smallest whole numbers:",
)
_BALANCE_ANSWER = ("Answer with the balanced equation, e.g. <answer>2 A + B -> 2 C</answer>, or with the coefficients "
                   "in the order the species appear, e.g. <answer>2, 1, 2</answer>.")

_BYPRODUCT_INTROS = (
    "In the balanced reaction below, the byproducts (small molecules formed together with the main product) have been "
    "removed from the right side:",
    "This reaction is missing its byproducts: the molecules formed alongside the main product were deleted from the "
    "right side, so it no longer balances:",
    "The right side of this balanced reaction lists only the main product(s) and unchanged reagents; the byproducts "
    "were removed:",
)
_BYPRODUCT_QUESTIONS = (
    "Which molecules are missing, and how many of each?",
    "Name the missing byproducts with their counts.",
    "Restore the missing molecules with their coefficients.",
)
_BYPRODUCT_ANSWER = "Answer with a bag in the same notation, e.g. <answer>{1}A.{2}B</answer>."

N_PHRASINGS = 3


def _messages(system: str, user: str) -> list[dict[str, str]]:
    return [{"role": "system", "content": system}, {"role": "user", "content": user}]


def products_prompt(
    inputs: Mapping[str, int],
    encoding: str,
    semantics: str,
    phrasing: int,
    reference: str | None = None,
) -> list[dict[str, str]]:
    """Prompt of a Type 1/2 products task (``reference``: the balanced reference equation, open-book mode)."""
    p = phrasing % N_PHRASINGS
    rule = _LIMITING_RULES[p] if semantics == "limiting" else _PAPER_RULE
    parts = [f"{_PRODUCT_INTROS[p]}\n\n{format_bag(inputs)}"]
    if reference is not None:
        parts.append(f"The balanced reference reaction (reagents shown on both sides) is:\n\n{reference}")
    parts.append(f"{rule} {_PRODUCT_QUESTIONS[p]}")
    notes = f"{BAG_NOTATION} {NOTATION[encoding]}"
    if reference is not None:
        notes += f" {EQUATION_NOTATION}"
    parts.append(notes)
    parts.append(_PRODUCT_ANSWER)
    return _messages(SYSTEM_PROMPTS[p], "\n\n".join(parts))


def balance_prompt(reactants: Sequence[str], products: Sequence[str], encoding: str, phrasing: int) -> list[dict[str, str]]:
    """Prompt of a balancing task (species in question order, no coefficients).

    In the formula encoding, inorganic species are shown in their conventional spelling (HBr, not
    BrH; :func:`~rlvr.generators.stoich.conventional.display_formula`); the checker reads either.
    """
    p = phrasing % N_PHRASINGS
    notation = NOTATION[encoding]
    if encoding == "formula":
        shown_r, shown_p = [display_formula(s) for s in reactants], [display_formula(s) for s in products]
        if [*shown_r, *shown_p] != [*reactants, *products]:
            reactants, products, notation = shown_r, shown_p, CONVENTIONAL_NOTATION
    equation = " + ".join(reactants) + " -> " + " + ".join(products)
    user = (f"{_BALANCE_INTROS[p]}\n\n{equation}\n\n{notation} Species are separated by ' + '.\n\n"
            f"{_BALANCE_ANSWER}")
    return _messages(SYSTEM_PROMPTS[p], user)


def byproduct_prompt(equation: str, encoding: str, phrasing: int) -> list[dict[str, str]]:
    """Prompt of a byproduct task (``equation``: the shown, incomplete equation)."""
    p = phrasing % N_PHRASINGS
    user = (f"{_BYPRODUCT_INTROS[p]}\n\n{equation}\n\n{_BYPRODUCT_QUESTIONS[p]}\n\n"
            f"{BAG_NOTATION} {NOTATION[encoding]} {EQUATION_NOTATION}\n\n{_BYPRODUCT_ANSWER}")
    return _messages(SYSTEM_PROMPTS[p], user)


def plain(bag: Mapping[str, int]) -> str:
    """``2 H2O + CH4`` (for docs and worked solutions)."""
    return format_plain(bag)
