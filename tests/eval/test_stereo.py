from rlvr.eval.stereo import smiles_has_stereocentre, stereo_flag
from rlvr.task import Task


def _task(meta, gt=None, family="stoich.t1"):
    return Task(id=f"{family}:test_in:0:0:x", family=family, prompt=[{"role": "user", "content": "q"}],
                ground_truth=gt or {"products": {}}, meta=meta)


def test_smiles_stereocentres():
    assert smiles_has_stereocentre("C[C@H](N)C(=O)O") is True
    assert smiles_has_stereocentre("CC(N)C(=O)O") is True  # unassigned centres count
    assert smiles_has_stereocentre("CCO") is False
    assert smiles_has_stereocentre("C1CC") is None  # does not parse


def test_meta_flag_wins():
    assert stereo_flag(_task({"encoding": "smiles", "has_stereo": False}, {"products": {"C[C@H](N)C(=O)O": 1}})) is False


def test_computed_from_smiles_reaction():
    task = _task({"encoding": "smiles", "reaction": {"reactants": {"CC(=O)C": 1}, "products": {"C[C@@H](O)CC": 1}}})
    assert stereo_flag(task) is True
    task = _task({"encoding": "smiles", "reaction": {"reactants": {"CCO": 1}, "products": {"CCOC(C)=O": 1, "O": 1}}})
    assert stereo_flag(task) is False


def test_formula_encoding_is_unknown_without_smiles():
    task = _task({"encoding": "formula", "reaction": {"reactants": {"CO": 1}, "products": {"CO2": 1}}})
    assert stereo_flag(task) is None
    task = _task({"encoding": "formula", "reaction_smiles": "CC(=O)C.[H][H]>>CC(O)C"})
    assert stereo_flag(task) is False
