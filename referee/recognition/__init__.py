"""Card recogniser: ONNX classifier runtime, synthetic training (``referee train``) and
deck enrollment (``referee enroll``).  Only the runtime is imported here; training code
(PyTorch) is imported when its command runs."""

from referee.recognition.classifier import CardClassifier, Prediction
from referee.recognition.enrollment import Enrollment

__all__ = ["CardClassifier", "Enrollment", "Prediction"]
