/* LD_PRELOAD'ed into the multi-rank run of scripts/test-sanitizers.sh only:
   dlclose does nothing, so OpenMPI's plugins (mca_*.so) stay mapped until
   exit and LeakSanitizer can name them, which lets scripts/lsan.supp
   suppress their allocations by library instead of ignoring leaks whose
   stack is an unloaded, nameless module. */
int dlclose(void *handle) {
  (void)handle;
  return 0;
}
