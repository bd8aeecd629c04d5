// expect-warning: 'bump' writes multiverse switch 'counter'; the switch is not specialized in this function
// expect-warning: 'peek' takes the address of multiverse switch 'mode'; the switch is not specialized in this function
__attribute__((multiverse)) int counter;
__attribute__((multiverse)) int mode;
__attribute__((multiverse)) int bump(void) { return counter++; }
void use(int *p);
__attribute__((multiverse)) int peek(void) { use(&mode); return mode; }
