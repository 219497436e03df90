from lazy import thing
