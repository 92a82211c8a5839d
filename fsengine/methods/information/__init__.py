"""The information-theoretic family (Brown, Pocock, Zhao & Luján, JMLR 13, 2012): one discretisation
(``discretise``), one count kernel (``kernels``), the unified criterion and its relatives and FCBF
(``model``), their selectors (``selector``)."""
