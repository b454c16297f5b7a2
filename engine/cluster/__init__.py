"""Where jobs run: the in-process cluster (``local``) and Spark (``spark_*``, ``control``).

Both run the same ``engine.runtime`` task code; ``local`` keeps every slot on threads of
this process for fast tests and previews. Submodules are imported on demand, so using the
local cluster never imports pyspark.
"""
