// Does not build: a syntax error on purpose.
kernel void broken(const uint n, global REAL* y) {
  y[get_global_id(0)] = undeclared_identifier +;
}
