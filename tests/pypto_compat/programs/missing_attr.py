import pypto.language as pl

KIND = pl.no_such_dsl_name
