//! Job files and includes are read only when they are regular files, under byte, line and job caps; fio --output replaces only what it may.
