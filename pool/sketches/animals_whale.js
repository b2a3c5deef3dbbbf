async function setup() {
  createCanvas(600, 600, WEBGL);
  brush.scaleBrushes(1.5);
  angleMode(DEGREES);
  noLoop();
}

function draw() {
  translate(-width / 2, -height / 2);
  background("#fffceb");
  randomSeed(813);

  brush.noStroke();
  brush.fill("#a8d0db", 90);
  brush.fillBleed(0.4);
  brush.fillTexture(0.6, 0.2);
  brush.rect(-10, -10, 620, 620);
  brush.fill("#3a5f85", 140);
  brush.fillBleed(0.15);
  brush.fillTexture(0.5, 0.6);
  brush.beginShape(0.8);
  brush.vertex(120, 330); brush.vertex(200, 250); brush.vertex(360, 240); brush.vertex(450, 290);
  brush.vertex(520, 250); brush.vertex(560, 220); brush.vertex(545, 300); brush.vertex(470, 340);
  brush.vertex(330, 390); brush.vertex(180, 380);
  brush.endShape(true);
  brush.fill("#dbe6ea", 140);
  brush.beginShape(0.8);
  brush.vertex(140, 345); brush.vertex(250, 360); brush.vertex(360, 362); brush.vertex(300, 385); brush.vertex(180, 378);
  brush.endShape(true);
  brush.fill("#1c2833", 200);
  brush.fillBleed(0);
  brush.circle(190, 315, 6, 0);
  brush.set("HB", "#ffffff", 1);
  brush.field("waves");
  for (let i = 0; i < 12; i++) brush.flowLine(random(600), random(420, 580), random(80, 160), 0);
  brush.noField();
}
