"""Learning to rank: data in SVMlight/libsvm text (``qid:`` or LightGBM ``.query`` files), labels to and from
judgments."""

from .judgments import Relabelled, relabel
from .svmlight import LtrData, read_svmlight, read_svmlight_files, write_svmlight

__all__ = ["LtrData", "Relabelled", "read_svmlight", "read_svmlight_files", "relabel", "write_svmlight"]
